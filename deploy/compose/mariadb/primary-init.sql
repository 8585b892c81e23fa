-- MariaDB flavour: the replication account. Binlogged like any change
-- (the replicas get it too; they never use it).
CREATE USER 'repl'@'%' IDENTIFIED BY 'repl';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';
