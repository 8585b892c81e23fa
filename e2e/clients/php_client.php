<?php
// Shoal's PHP client check (mysqlnd: mysqli and PDO_MySQL).
//
// Runs the statements of e2e/clients_more_test.go through PHP's own
// implementation of the MySQL protocol (mysqlnd, not libmysqlclient)
// against one server and prints every result as one JSON line, so the test
// can compare Shoal's answers with the primary's line by line: values with
// their PHP types, column metadata (mysqli fetch_fields, PDO
// getColumnMeta), warning counts, affected rows, error codes, SQLSTATEs and
// messages, and every result set of a multi-statement query.
//
// usage: php php_client.php HOST PORT USER PASSWORD DATABASE

mysqli_report(MYSQLI_REPORT_OFF);

// enc renders a value with its PHP type, so type differences show.
function enc($v) {
    if ($v === null) {
        return null;
    }
    if (is_float($v)) {
        return 'float:' . var_export($v, true);
    }
    return gettype($v) . ':' . $v;
}

function out(array $o) {
    echo json_encode($o, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_PRESERVE_ZERO_FRACTION | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
}

// fields is what mysqli tells of a result's columns.
function fields($res) {
    $cols = [];
    foreach ($res->fetch_fields() as $f) {
        $cols[] = [$f->name, $f->orgname, $f->table, $f->orgtable, $f->db, $f->length, $f->charsetnr,
            $f->flags, $f->type, $f->decimals];
    }
    return $cols;
}

function rows($res) {
    $rows = [];
    while ($r = $res->fetch_row()) {
        $rows[] = array_map('enc', $r);
    }
    return $rows;
}

function myerr($name, $code, $state, $msg) {
    out(['name' => $name, 'error' => $code, 'sqlstate' => $state, 'message' => $msg]);
}

// query runs sql as a text query (or several: multi_query) and prints each
// result set with the connection's counters after it.
function query(mysqli $m, $name, $sql) {
    if (!$m->multi_query($sql)) {
        myerr($name, $m->errno, $m->sqlstate, $m->error);
        return;
    }
    $i = 0;
    do {
        $o = ['name' => "$name #$i"];
        $res = $m->store_result();
        if ($res) {
            $o['cols'] = fields($res);
            $o['rows'] = rows($res);
            $res->free();
        } elseif ($m->errno) {
            myerr("$name #$i", $m->errno, $m->sqlstate, $m->error);
            return;
        }
        $o['affected'] = $m->affected_rows;
        $o['warnings'] = $m->warning_count;
        $o['field_count'] = $m->field_count;
        out($o);
        $i++;
        if (!$m->more_results()) {
            break;
        }
        if (!$m->next_result()) {
            myerr("$name #$i", $m->errno, $m->sqlstate, $m->error);
            return;
        }
    } while (true);
}

// prepared runs sql as a server-side prepared statement (COM_STMT_PREPARE,
// COM_STMT_EXECUTE: binary rows) once per parameter set, reading the rows
// through get_result (mysqlnd decodes the binary row into native types)
// or bind_result.
function prepared(mysqli $m, $name, $sql, $types, array $sets, $bind = false) {
    $st = $m->prepare($sql);
    if (!$st) {
        myerr("$name prepare", $m->errno, $m->sqlstate, $m->error);
        return;
    }
    $meta = $st->result_metadata();
    out(['name' => "$name prepare", 'params' => $st->param_count, 'field_count' => $st->field_count,
        'cols' => $meta ? fields($meta) : null]);
    foreach ($sets as $i => $args) {
        if ($types !== '') {
            $st->bind_param($types, ...$args);
        }
        if (!$st->execute()) {
            myerr("$name exec $i", $st->errno, $st->sqlstate, $st->error);
            continue;
        }
        $o = ['name' => "$name exec $i"];
        if ($bind) {
            $st->store_result();
            $vals = array_fill(0, $st->field_count, null);
            $refs = [];
            foreach ($vals as $k => &$v) {
                $refs[$k] = &$v;
            }
            unset($v);
            $st->bind_result(...$refs);
            $rows = [];
            while ($st->fetch()) {
                $rows[] = array_map('enc', $vals);
            }
            $o['rows'] = $rows;
            $st->free_result();
        } else {
            $res = $st->get_result();
            if ($res) {
                $o['cols'] = fields($res);
                $o['rows'] = rows($res);
            } elseif ($st->errno) {
                myerr("$name exec $i", $st->errno, $st->sqlstate, $st->error);
                continue;
            }
        }
        $o['affected'] = $st->affected_rows;
        $o['warnings'] = $m->warning_count;
        out($o);
    }
    $st->close();
}

// pdo runs sql through PDO (prepare, bindValue with PDO types, execute),
// printing getColumnMeta and every rowset.
function pdo(PDO $db, $name, $sql, array $args = []) {
    try {
        $st = $db->prepare($sql);
        foreach ($args as $k => $a) {
            [$v, $t] = $a;
            $st->bindValue($k + 1, $v, $t);
        }
        $st->execute();
        $i = 0;
        do {
            $o = ['name' => "$name #$i", 'cols' => []];
            for ($c = 0; $c < $st->columnCount(); $c++) {
                $cm = $st->getColumnMeta($c);
                $o['cols'][] = [$cm['name'], $cm['native_type'] ?? null, $cm['pdo_type'], $cm['flags'], $cm['table'],
                    $cm['len'], $cm['precision']];
            }
            $o['rows'] = $st->columnCount() ? array_map(fn ($r) => array_map('enc', $r), $st->fetchAll(PDO::FETCH_NUM)) : null;
            $o['count'] = $st->rowCount();
            out($o);
            $i++;
        } while ($st->nextRowset());
        $w = $db->query('select @@warning_count')->fetchColumn();
        out(['name' => "$name warnings", 'warnings' => enc($w)]);
    } catch (PDOException $e) {
        $info = $e->errorInfo ?? [null, null, null];
        out(['name' => $name, 'error' => $info[1], 'sqlstate' => $info[0], 'message' => $info[2]]);
    }
}

function main($argv) {
    [, $host, $port, $user, $password, $db] = $argv;
    $agg = 'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), min(FlightDate), max(FlightDate), '
        . 'stddev(ArrDelayMinutes), sum(Distance * 1.5), avg(Distance / 7e0), min(TailNum), max(TailNum) '
        . 'from ontime group by Carrier order by Carrier';
    $doubles = 'select DayOfWeek, sum(Distance / 7e0), avg(cast(ArrDelayMinutes as double)), std(Distance), '
        . 'variance(DepDelayMinutes), var_samp(Distance), stddev_samp(ArrDelayMinutes), max(Distance * 0.1e0), '
        . 'count(distinct Carrier) from ontime group by DayOfWeek order by DayOfWeek';
    $dates = 'select YearD, min(timestamp(FlightDate)), max(addtime(timestamp(FlightDate), \'12:34:56\')), '
        . 'min(date_format(FlightDate, \'%Y/%m\')), max(FlightDate + interval 1 day), count(*) '
        . 'from ontime where YearD >= 2005 group by YearD order by YearD';
    $utf8 = "select concat(Carrier, ' \u{2708} \u{00fc}') as c, min(concat(Origin, '\u{2192}', Dest)), count(*), "
        . "max(char_length(concat(Carrier, '\u{1F6EB}'))) from ontime where YearD = 2004 group by Carrier order by Carrier";

    // mysqli with native ints and floats from text results too (what
    // Laravel and most PHP apps turn on).
    $m = mysqli_init();
    $m->options(MYSQLI_OPT_INT_AND_FLOAT_NATIVE, 1);
    if (!$m->real_connect($host, $user, $password, $db, (int) $port)) {
        fwrite(STDERR, "connect: " . mysqli_connect_error() . "\n");
        exit(1);
    }
    $m->set_charset('utf8mb4');
    out(['name' => 'charset', 'charset' => $m->character_set_name()]);
    query($m, 'distributed aggregate', $agg);
    query($m, 'double aggregates', $doubles);
    query($m, 'dates', $dates);
    query($m, 'utf8mb4', $utf8);
    query($m, 'nulls', 'select id, TailNum, ArrDelayMinutes, DepDelayMinutes from ontime '
        . 'where TailNum is null or ArrDelayMinutes is null order by id limit 5');
    query($m, 'pinned', 'select code, name, country from carriers order by code');
    query($m, 'pinned aggregate', 'select country, count(*), max(name), min(code) from carriers group by country order by country');
    query($m, 'pinned airports', 'select state, count(*), group_concat(code order by code) from airports group by state order by state');
    query($m, 'passthrough join', 'select c.name, count(*), sum(o.Distance) from ontime o join carriers c on c.code = o.Carrier '
        . 'where o.YearD = 2002 group by c.name order by c.name');
    query($m, 'passthrough show', 'show columns from carriers');
    query($m, 'information_schema', "select column_name, data_type, character_maximum_length, numeric_precision, is_nullable "
        . "from information_schema.columns where table_schema = database() and table_name = 'carriers' order by ordinal_position");
    query($m, 'warnings', "select cast('12abc' as signed), 1/0, count(*) from ontime where id < 10");
    query($m, 'distributed warnings', "select Carrier, sum(cast(concat(Carrier, 'x') as signed)) from ontime group by Carrier order by Carrier");
    query($m, 'set', 'set @a = 5');
    query($m, 'do', 'do 1');
    query($m, 'multi', "select count(*) from ontime; select Carrier, count(*) from ontime group by Carrier order by Carrier limit 3; "
        . "select @a, 'x'");
    // MariaDB quotes a syntax error's text to the end of the whole query
    // (its trailing semicolons and white space dropped).
    query($m, 'multi with error', "select 1; select Carrier, count(*) from ontime group by Carrier order by 2 desc limit 2;\n selec\nbroken ; select 2 ;  ");
    query($m, 'multi with error last', 'select 1; selec broken;');
    // Lines are counted from the query's first character that is not
    // white space.
    query($m, 'multi with error first', "\n  selec\n broken; select 1");
    query($m, 'multi with error after a comment', "select 1; /* c */\n selec x; select 2");
    query($m, 'multi with a long error', "select 1; selec broken; select '" . str_repeat("\u{00fc}", 50) . "'");
    query($m, 'after multi error', 'select count(*), sum(Distance) from ontime');
    query($m, 'syntax error', 'selec broken from ontime');
    query($m, 'syntax error on line 2', "\n\n  select Carrier,\n count(*) frm ontime");
    query($m, 'unknown column', 'select nosuch from ontime group by Carrier');
    // Writes that change nothing on MariaDB (Shoal refuses them: 1290).
    query($m, 'write text', "insert into carriers (code, name, country) select code, name, country from carriers where 1 = 0");
    query($m, 'good after errors', 'select Carrier, count(*) from ontime where YearD = 2003 group by Carrier order by Carrier');

    // Server-side prepared statements.
    $p = 'select Carrier, count(*), sum(Distance), avg(ArrDelayMinutes), min(FlightDate), stddev(ArrDelayMinutes) '
        . 'from ontime where YearD between ? and ? and Origin = ? group by Carrier order by Carrier';
    prepared($m, 'prepared aggregate', $p, 'iis', [[2000, 2005, 'SFO'], [1995, 2010, 'LAX'], [1800, 1801, 'SFO']]);
    prepared($m, 'prepared aggregate bound', $p, 'iis', [[2000, 2005, 'SFO']], true);
    prepared($m, 'prepared double', 'select Carrier, sum(Distance * ?), max(Distance / ?), count(*) from ontime '
        . 'where ArrDelayMinutes > ? group by Carrier order by Carrier', 'ddd', [[1.5, 3.25, 30.25]]);
    prepared($m, 'prepared limit', 'select id, FlightDate, Carrier, TailNum, ArrDelayMinutes from ontime where Origin = ? '
        . 'order by ArrDelayMinutes desc, id limit ?', 'si', [['SFO', 7], ['JFK', 3]]);
    prepared($m, 'prepared limit offset', 'select Carrier, count(*) from ontime group by Carrier order by 2 desc, 1 limit ?, ?',
        'ii', [[1, 3]]);
    prepared($m, 'prepared dates', 'select count(*), min(FlightDate), max(timestamp(FlightDate)), sum(ArrDelayMinutes) '
        . 'from ontime where FlightDate between ? and ?', 'ss', [['2001-01-01', '2002-06-30']]);
    prepared($m, 'prepared null', 'select count(*) from ontime where TailNum <=> ?', 's', [[null]]);
    prepared($m, 'prepared utf8mb4', 'select code, name, country from carriers where name like ? or code = ? order by code',
        'ss', [["%\u{00d1}and\u{00fa}%", 'ZZ'], ['nothing', 'AA']]);
    prepared($m, 'prepared pinned', 'select country, count(*) from carriers where code > ? group by country order by country',
        's', [['B']]);
    prepared($m, 'prepared passthrough', 'select c.name, count(*) from ontime o join carriers c on c.code = o.Carrier '
        . 'where o.YearD = ? group by c.name order by c.name', 'i', [[2003]]);
    prepared($m, 'prepared no parameters', 'select DayOfWeek, count(*), avg(Distance) from ontime group by DayOfWeek order by DayOfWeek',
        '', [[]]);
    prepared($m, 'prepared warnings', "select cast('12abc' as signed), count(*) from ontime where id < ?", 'i', [[10], [100000]]);
    // Columns computed from parameters: MariaDB describes them as it
    // prepared them (nullable), a bare parameter by its value.
    prepared($m, 'prepared parameter columns', "select Distance < ?, if(Distance > ?, 'a', 'b'), ?, concat(Carrier, ?), "
        . "cast(? as signed), Carrier from ontime where id < ? order by id limit 3", 'iisssi',
        [[500, 600, 'x', '-y', '42', 5000], [100, 100, 'z', '', '7', 3000]]);
    prepared($m, 'prepared syntax error', 'selec broken ?', 'i', [[1]]);
    prepared($m, 'prepared unknown column', 'select nosuch from ontime where id = ?', 'i', [[1]]);
    prepared($m, 'write prepared', 'update carriers set name = ? where code = ? and 1 = 0', 'ss', [['q', 'AA']]);
    prepared($m, 'prepared good after errors', 'select count(*), max(id) from ontime where id < ?', 'i', [[5000]]);
    // A read-only cursor (COM_STMT_EXECUTE with a cursor flag, rows
    // fetched five at a time where the server opens one), long data
    // (COM_STMT_SEND_LONG_DATA) and COM_STMT_RESET.
    $st = $m->prepare('select Carrier, count(*), avg(Distance) from ontime where YearD > ? group by Carrier order by Carrier');
    $st->attr_set(MYSQLI_STMT_ATTR_CURSOR_TYPE, MYSQLI_CURSOR_TYPE_READ_ONLY);
    $st->attr_set(MYSQLI_STMT_ATTR_PREFETCH_ROWS, 5);
    $year = 2000;
    $st->bind_param('i', $year);
    $o = ['name' => 'cursor', 'ok' => $st->execute(), 'errno' => $st->errno, 'rows' => []];
    $st->bind_result($c1, $c2, $c3);
    while ($st->fetch()) {
        $o['rows'][] = [enc($c1), enc($c2), enc($c3)];
    }
    out($o);
    $st->close();
    $st = $m->prepare('select ?, length(?), count(*) from ontime where Carrier = ?');
    $s1 = $s2 = null;
    $carrier = 'AA';
    $st->bind_param('sbs', $s1, $s2, $carrier);
    $st->send_long_data(1, str_repeat("\u{00e9}b", 5000));
    $s1 = "h\u{00e9}llo \u{2708}";
    $o = ['name' => 'long data', 'ok' => $st->execute(), 'errno' => $st->errno];
    $res = $st->get_result();
    $o['cols'] = $res ? fields($res) : null;
    $o['rows'] = $res ? rows($res) : null;
    $o['reset'] = $st->reset();
    out($o);
    $st->close();
    query($m, 'long syntax error', "selec '\u{00fc}' " . str_repeat("\u{00fc}", 60) . ' from ontime');
    prepared($m, 'prepared long syntax error', 'selec ? ' . str_repeat('x', 90), 'i', [[1]]);
    query($m, 'text after prepared', 'select count(*) from ontime where Origin = \'SFO\'');
    $m->close();

    // PDO, native prepares and emulated ones.
    foreach ([false, true] as $emulate) {
        $tag = $emulate ? 'pdo emulated' : 'pdo native';
        $pdo = new PDO("mysql:host=$host;port=$port;dbname=$db;charset=utf8mb4", $user, $password, [
            PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
            PDO::ATTR_EMULATE_PREPARES => $emulate,
            PDO::ATTR_STRINGIFY_FETCHES => false,
        ]);
        pdo($pdo, "$tag aggregate", $agg);
        pdo($pdo, "$tag doubles", $doubles);
        pdo($pdo, "$tag dates", $dates);
        pdo($pdo, "$tag utf8mb4", $utf8);
        pdo($pdo, "$tag parameters", $p, [[2000, PDO::PARAM_INT], [2005, PDO::PARAM_INT], ['SFO', PDO::PARAM_STR]]);
        pdo($pdo, "$tag limit", 'select id, Carrier, ArrDelayMinutes from ontime where Origin = ? order by ArrDelayMinutes desc, id limit ?',
            [['SFO', PDO::PARAM_STR], [5, PDO::PARAM_INT]]);
        pdo($pdo, "$tag null and bool", 'select count(*), sum(Distance) from ontime where TailNum <=> ? and Cancelled = ?',
            [[null, PDO::PARAM_NULL], [false, PDO::PARAM_BOOL]]);
        pdo($pdo, "$tag pinned", 'select code, name from carriers where code <> ? order by code', [['AA', PDO::PARAM_STR]]);
        pdo($pdo, "$tag passthrough", 'show tables');
        pdo($pdo, "$tag warnings", "select cast('1x' as signed), count(*) from ontime where id < ?", [[10, PDO::PARAM_INT]]);
        pdo($pdo, "$tag syntax error", 'selec broken ?', [[1, PDO::PARAM_INT]]);
        pdo($pdo, "$tag unknown column", 'select nosuch from ontime where id = ?', [[1, PDO::PARAM_INT]]);
        pdo($pdo, "write $tag", 'delete from carriers where code = ? and 1 = 0', [['AA', PDO::PARAM_STR]]);
        pdo($pdo, "$tag good after errors", 'select count(*) from ontime where Carrier = ?', [['WN', PDO::PARAM_STR]]);
        if ($emulate) {
            pdo($pdo, "$tag multi", 'select count(*) from ontime; select Carrier, max(Distance) from ontime group by Carrier order by Carrier');
        }
    }
}

main($argv);
