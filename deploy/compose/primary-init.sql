-- MySQL 8.4 flavour: the replication account for the replicas (GTID
-- auto-positioning). Binlogged like any change.
CREATE USER 'repl'@'%' IDENTIFIED BY 'repl';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';
