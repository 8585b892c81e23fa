#!/usr/bin/perl
# Shoal's Perl DBD::MariaDB client check (MariaDB Connector/C, libmariadb).
#
# Runs the statements of e2e/clients_more_test.go through DBD::MariaDB,
# which drives MariaDB's C connector: with mariadb_server_prepare=1 its
# prepared-statement API (mysql_stmt_prepare, mysql_stmt_execute, binary
# rows bound into C buffers), without it the text protocol, and
# mariadb_multi_statements for several result sets. Prints every result as
# one JSON line (values keep whether Perl holds them as numbers or
# strings), with the column metadata the driver exposes (TYPE, PRECISION,
# SCALE, NULLABLE, mariadb_type, mariadb_is_num, ...), warning count, rows,
# and error codes, SQLSTATEs and messages, so the test can compare Shoal's
# answers with the primary's line by line.
#
# usage: perl dbd_mariadb_client.pl HOST PORT USER PASSWORD DATABASE
use strict;
use warnings;
use DBI;
use JSON::PP;

my $json = JSON::PP->new->canonical->allow_nonref;
binmode STDOUT, ':raw';

sub out { print $json->utf8->encode($_[0]), "\n"; }

# cell keeps a number a number and a string a string (JSON::PP reads the
# scalar's flags), so a column read as text where the server sent a number
# shows.
sub cell {
    my ($v) = @_;
    return undef unless defined $v;
    my $b = B::svref_2object(\$v);
    my $num = ($b->FLAGS & (B::SVp_IOK() | B::SVp_NOK())) && !($b->FLAGS & B::SVp_POK());
    return $num ? "num:$v" : "str:$v";
}
use B;

sub meta {
    my ($sth) = @_;
    my @cols;
    my $n = $sth->{NUM_OF_FIELDS} or return [];
    for my $i (0 .. $n - 1) {
        push @cols, [map { my $a = $sth->{$_}; ref $a ? $a->[$i] : "no $_" } qw(NAME TYPE PRECISION SCALE NULLABLE mariadb_type mariadb_type_name
            mariadb_is_num mariadb_is_pri_key mariadb_is_not_null mariadb_table)];
    }
    return \@cols;
}

sub err {
    my ($name, $h) = @_;
    out({name => $name, error => $h->err + 0, sqlstate => $h->state, message => $h->errstr});
}

# run prepares sql once and executes it with each argument list, printing
# every result set (mariadb_multi_statements) with its metadata.
sub run {
    my ($dbh, $name, $sql, @sets) = @_;
    my $server_prepare = $dbh->{mariadb_server_prepare};
    @sets = ([]) unless @sets;
    my $sth = $dbh->prepare($sql);
    unless ($sth) {
        err("$name prepare", $dbh);
        return;
    }
    for my $i (0 .. $#sets) {
        my $rv = $sth->execute(@{$sets[$i]});
        unless (defined $rv) {
            err("$name exec $i", $sth);
            next;
        }
        my $k = 0;
        while (1) {
            my $o = {name => "$name exec $i #$k", rv => "$rv", cols => meta($sth)};
            if ($sth->{NUM_OF_FIELDS}) {
                $o->{rows} = [map { [map { cell($_) } @$_] } @{$sth->fetchall_arrayref}];
                if ($sth->err) {
                    err("$name exec $i #$k fetch", $sth);
                    last;
                }
            }
            $o->{warnings} = $sth->{mariadb_warning_count};
            $o->{rows_count} = $sth->rows;
            out($o);
            $k++;
            # With server-side prepare a statement has one result.
            last if $server_prepare || !$sth->more_results;
        }
        err("$name exec $i more", $sth) if $sth->err;
    }
    $sth->finish;
}

my ($host, $port, $user, $password, $db) = @ARGV;
for my $server_prepare (1, 0) {
    my $tag = $server_prepare ? 'server prepare' : 'client prepare';
    my $dbh = DBI->connect("DBI:MariaDB:database=$db;host=$host;port=$port;mariadb_server_prepare=$server_prepare;"
            . "mariadb_multi_statements=" . ($server_prepare ? 0 : 1),
        $user, $password, {RaiseError => 0, PrintError => 0, AutoCommit => 1})
        or die "connect: $DBI::errstr";
    run($dbh, "$tag aggregate", 'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), min(FlightDate), max(FlightDate), '
        . 'stddev(ArrDelayMinutes), sum(Distance * 1.5), avg(Distance / 7e0), min(TailNum) from ontime group by Carrier order by Carrier');
    run($dbh, "$tag doubles", 'select DayOfWeek, sum(Distance / 7e0), std(Distance), variance(DepDelayMinutes), '
        . 'max(Distance * 0.1e0), avg(cast(ArrDelayMinutes as double)) from ontime group by DayOfWeek order by DayOfWeek');
    run($dbh, "$tag dates", "select YearD, min(timestamp(FlightDate)), max(addtime(timestamp(FlightDate), '12:34:56')), "
        . "max(FlightDate + interval 1 day), count(*) from ontime where YearD >= 2005 group by YearD order by YearD");
    run($dbh, "$tag utf8mb4", "select concat(Carrier, ' \x{2708} \x{fc}') as c, count(*) from ontime where YearD = 2004 "
        . "group by Carrier order by Carrier");
    run($dbh, "$tag nulls", 'select id, TailNum, ArrDelayMinutes from ontime where TailNum is null or ArrDelayMinutes is null '
        . 'order by id limit 5');
    run($dbh, "$tag parameters", 'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), stddev(Distance) from ontime '
        . 'where YearD between ? and ? and Origin = ? group by Carrier order by Carrier', [2000, 2005, 'SFO'], [1995, 2010, 'LAX']);
    run($dbh, "$tag limit", 'select id, FlightDate, Carrier, ArrDelayMinutes from ontime where Origin = ? '
        . 'order by ArrDelayMinutes desc, id limit ?', ['SFO', 4]);
    run($dbh, "$tag double parameter", 'select Carrier, sum(Distance * ?) from ontime where ArrDelayMinutes > ? '
        . 'group by Carrier order by Carrier', [1.5, 30.25]);
    run($dbh, "$tag null parameter", 'select count(*) from ontime where TailNum <=> ?', [undef]);
    run($dbh, "$tag utf8mb4 parameter", 'select code, name from carriers where name like ? or code = ? order by code',
        ["%\x{d1}and\x{fa}%", 'ZZ']);
    run($dbh, "$tag pinned", 'select country, count(*), max(name) from carriers group by country order by country');
    run($dbh, "$tag passthrough", 'select c.name, count(*) from ontime o join carriers c on c.code = o.Carrier '
        . 'where o.YearD = ? group by c.name order by c.name', [2003]);
    run($dbh, "$tag warnings", "select cast('12abc' as signed), count(*) from ontime where id < ?", [10]);
    run($dbh, "$tag syntax error", 'selec broken ?', [1]);
    run($dbh, "$tag unknown column", 'select nosuch from ontime where id = ?', [1]);
    run($dbh, "write $tag", 'update carriers set name = ? where 1 = 0', ['x']);
    run($dbh, "$tag good after errors", 'select count(*), max(id) from ontime where id < ?', [5000]);
    run($dbh, "$tag multi", "select count(*) from ontime; select Carrier, count(*) from ontime group by Carrier order by Carrier limit 2")
        unless $server_prepare;
    $dbh->disconnect;
}
