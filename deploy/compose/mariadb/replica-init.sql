-- MariaDB flavour: follow the primary by GTID from the replica's own
-- applied position (gtid_slave_pos, empty on a new replica: the primary's
-- whole binlog). The entrypoint writes nothing to a replica's binlog, so
-- under gtid_strict_mode its GTID set stays a prefix of the primary's.
CHANGE MASTER TO MASTER_HOST='primary', MASTER_PORT=3306, MASTER_USER='repl',
  MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
START SLAVE;
