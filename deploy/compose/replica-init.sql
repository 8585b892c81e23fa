-- MySQL 8.4 flavour: follow the primary with GTID auto-positioning. The
-- replica's own init writes nothing to its binlog (the image sets up root
-- with sql_log_bin=0, and time zones are skipped:
-- MYSQL_INITDB_SKIP_TZINFO), so its GTID set stays a subset of the
-- primary's. The repl account uses caching_sha2_password, 8.4's default:
-- without TLS the replica needs the primary's RSA key
-- (GET_SOURCE_PUBLIC_KEY=1).
CHANGE REPLICATION SOURCE TO SOURCE_HOST='primary', SOURCE_PORT=3306, SOURCE_USER='repl',
  SOURCE_PASSWORD='repl', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1, SOURCE_CONNECT_RETRY=1;
START REPLICA;
