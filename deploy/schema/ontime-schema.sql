-- Shoal sample schema: the airline on-time table modelled on the public BTS
-- "ontime" data, plus two small dimension tables.
--
-- This file is the single source of the DDL. `shoal gen` and the local
-- cluster embed it (package deploy/schema); container init scripts can
-- source it as is. It creates tables only: run it inside the target
-- database (the loader creates the database `ontime` first).
--
-- Keep one statement per `;` at the end of a line and no `;` inside
-- comments or literals: the loader splits the file on those.

CREATE TABLE carriers (
  code    VARCHAR(10)  NOT NULL,
  name    VARCHAR(100) NOT NULL,
  country VARCHAR(50)  NOT NULL,
  PRIMARY KEY (code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE airports (
  code  CHAR(3)      NOT NULL,
  city  VARCHAR(100) NOT NULL,
  state CHAR(2)      NOT NULL,
  name  VARCHAR(100) NOT NULL,
  PRIMARY KEY (code)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- id is AUTO_INCREMENT but loaded with explicit values that have gaps
-- (dense runs, small skips, a few big holes), so range splitting on the
-- primary key meets uneven key density. Rows are in FlightDate order, as
-- the real data is loaded month by month.
CREATE TABLE ontime (
  id              INT         NOT NULL AUTO_INCREMENT,
  YearD           SMALLINT    NOT NULL,
  Quarter         TINYINT     NOT NULL,
  MonthD          TINYINT     NOT NULL,
  DayofMonth      TINYINT     NOT NULL,
  DayOfWeek       TINYINT     NOT NULL,
  FlightDate      DATE        NOT NULL,
  UniqueCarrier   CHAR(2)     NOT NULL,
  Carrier         VARCHAR(10) NOT NULL,
  TailNum         VARCHAR(10) NULL,
  FlightNum       INT         NOT NULL,
  Origin          CHAR(3)     NOT NULL,
  OriginState     CHAR(2)     NOT NULL,
  Dest            CHAR(3)     NOT NULL,
  DestState       CHAR(2)     NOT NULL,
  DepDelayMinutes INT         NULL,
  ArrDelayMinutes INT         NULL,
  Cancelled       TINYINT     NOT NULL,
  Diverted        TINYINT     NOT NULL,
  Distance        INT         NOT NULL,
  PRIMARY KEY (id),
  KEY FlightDate (FlightDate),
  KEY Carrier (Carrier)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
