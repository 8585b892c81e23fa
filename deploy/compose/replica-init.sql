-- Follow the primary with GTID auto-positioning. The replica's own init
-- writes nothing to its binlog, so its GTID set stays a prefix of the
-- primary's.
CHANGE REPLICATION SOURCE TO SOURCE_HOST='primary', SOURCE_PORT=3306, SOURCE_USER='repl',
  SOURCE_PASSWORD='repl', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1;
START REPLICA;
