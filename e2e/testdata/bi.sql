-- What BI tools and dashboards send: statements written as Metabase,
-- Superset (SQLAlchemy's mysql dialect), Grafana's MySQL data source (its
-- macros expanded), Tableau, Looker, Power BI and Redash generate them,
-- over ontime, carriers, mixed_cs and bi_events (e2e/bi_test.go creates
-- it: DATETIME and TIMESTAMP columns, a DECIMAL, NULLs). TestBIToolSQL
-- runs each with diff() and checks the share that runs distributed.
--
-- Format as testdata/regressions.sql: one statement per line, the line
-- before it "-- ordered" (its ORDER BY is total) or "-- unordered"; other
-- "--" lines are comments.

-- Metabase
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, count(*) AS `count` FROM `ontime` GROUP BY `ontime`.`Carrier` ORDER BY `ontime`.`Carrier` ASC
-- ordered
SELECT str_to_date(concat(date_format(`ontime`.`FlightDate`, '%Y-%m'), '-01'), '%Y-%m-%d') AS `FlightDate`, count(*) AS `count` FROM `ontime` GROUP BY str_to_date(concat(date_format(`ontime`.`FlightDate`, '%Y-%m'), '-01'), '%Y-%m-%d') ORDER BY str_to_date(concat(date_format(`ontime`.`FlightDate`, '%Y-%m'), '-01'), '%Y-%m-%d') ASC
-- ordered
SELECT str_to_date(concat(yearweek(`ontime`.`FlightDate`), ' Sunday'), '%X%V %W') AS `FlightDate`, count(*) AS `count` FROM `ontime` WHERE `ontime`.`YearD` = 2005 GROUP BY str_to_date(concat(yearweek(`ontime`.`FlightDate`), ' Sunday'), '%X%V %W') ORDER BY str_to_date(concat(yearweek(`ontime`.`FlightDate`), ' Sunday'), '%X%V %W') ASC
-- ordered
SELECT str_to_date(concat(year(`ontime`.`FlightDate`), '-', ((quarter(`ontime`.`FlightDate`) * 3) - 2), '-01'), '%Y-%m-%d') AS `FlightDate`, sum(`ontime`.`Distance`) AS `sum` FROM `ontime` GROUP BY str_to_date(concat(year(`ontime`.`FlightDate`), '-', ((quarter(`ontime`.`FlightDate`) * 3) - 2), '-01'), '%Y-%m-%d') ORDER BY str_to_date(concat(year(`ontime`.`FlightDate`), '-', ((quarter(`ontime`.`FlightDate`) * 3) - 2), '-01'), '%Y-%m-%d') ASC
-- ordered
SELECT str_to_date(concat(year(`ontime`.`FlightDate`), '-01-01'), '%Y-%m-%d') AS `FlightDate`, avg(`ontime`.`ArrDelayMinutes`) AS `avg` FROM `ontime` GROUP BY str_to_date(concat(year(`ontime`.`FlightDate`), '-01-01'), '%Y-%m-%d') ORDER BY str_to_date(concat(year(`ontime`.`FlightDate`), '-01-01'), '%Y-%m-%d') ASC
-- ordered
SELECT date(`bi_events`.`created_at`) AS `created_at`, count(*) AS `count` FROM `bi_events` WHERE (`bi_events`.`created_at` >= timestamp('2015-01-01 00:00:00') AND `bi_events`.`created_at` < timestamp('2015-03-01 00:00:00')) GROUP BY date(`bi_events`.`created_at`) ORDER BY date(`bi_events`.`created_at`) ASC
-- ordered
SELECT date_format(`bi_events`.`created_at`, '%Y-%m-%d %H:00') AS `created_at`, count(*) AS `count` FROM `bi_events` WHERE `bi_events`.`created_at` BETWEEN timestamp('2016-06-01 00:00:00') AND timestamp('2016-06-03 23:59:59') GROUP BY date_format(`bi_events`.`created_at`, '%Y-%m-%d %H:00') ORDER BY date_format(`bi_events`.`created_at`, '%Y-%m-%d %H:00') ASC
-- ordered
SELECT hour(`bi_events`.`created_at`) AS `created_at`, count(*) AS `count` FROM `bi_events` GROUP BY hour(`bi_events`.`created_at`) ORDER BY hour(`bi_events`.`created_at`) ASC
-- ordered
SELECT dayofweek(`ontime`.`FlightDate`) AS `FlightDate`, count(*) AS `count` FROM `ontime` GROUP BY dayofweek(`ontime`.`FlightDate`) ORDER BY dayofweek(`ontime`.`FlightDate`) ASC
-- ordered
SELECT month(`ontime`.`FlightDate`) AS `FlightDate`, count(*) AS `count` FROM `ontime` GROUP BY month(`ontime`.`FlightDate`) ORDER BY month(`ontime`.`FlightDate`) ASC
-- ordered
SELECT `ontime`.`Origin` AS `Origin`, count(*) AS `count` FROM `ontime` GROUP BY `ontime`.`Origin` ORDER BY `count` DESC, `ontime`.`Origin` ASC LIMIT 10
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, count(distinct `ontime`.`TailNum`) AS `count`, sum(`ontime`.`Distance`) AS `sum`, avg(`ontime`.`DepDelayMinutes`) AS `avg` FROM `ontime` WHERE (`ontime`.`Cancelled` = 0 AND `ontime`.`Carrier` IN ('AA', 'UA', 'DL', 'WN')) GROUP BY `ontime`.`Carrier` ORDER BY `ontime`.`Carrier` ASC
-- ordered
SELECT floor((`ontime`.`Distance` / 250.0)) * 250.0 AS `Distance`, count(*) AS `count` FROM `ontime` GROUP BY floor((`ontime`.`Distance` / 250.0)) * 250.0 ORDER BY floor((`ontime`.`Distance` / 250.0)) * 250.0 ASC
-- ordered
SELECT (floor(((`ontime`.`ArrDelayMinutes` - 0.0) / 12.5)) * 12.5) + 0.0 AS `ArrDelayMinutes`, count(*) AS `count` FROM `ontime` GROUP BY (floor(((`ontime`.`ArrDelayMinutes` - 0.0) / 12.5)) * 12.5) + 0.0 ORDER BY (floor(((`ontime`.`ArrDelayMinutes` - 0.0) / 12.5)) * 12.5) + 0.0 ASC
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, `carriers__via__Carrier`.`name` AS `carriers__via__Carrier__name`, count(*) AS `count` FROM `ontime` LEFT JOIN `carriers` `carriers__via__Carrier` ON `ontime`.`Carrier` = `carriers__via__Carrier`.`code` GROUP BY `ontime`.`Carrier`, `carriers__via__Carrier`.`name` ORDER BY `ontime`.`Carrier` ASC, `carriers__via__Carrier`.`name` ASC
-- ordered
SELECT `source`.`Carrier` AS `Carrier`, count(*) AS `count` FROM (SELECT `ontime`.`Carrier` AS `Carrier`, `ontime`.`Distance` AS `Distance` FROM `ontime` WHERE `ontime`.`Distance` > 1500) `source` GROUP BY `source`.`Carrier` ORDER BY `source`.`Carrier` ASC
-- ordered
SELECT `source`.`Carrier` AS `Carrier`, avg(`source`.`count`) AS `avg` FROM (SELECT `ontime`.`Carrier` AS `Carrier`, `ontime`.`Origin` AS `Origin`, count(*) AS `count` FROM `ontime` GROUP BY `ontime`.`Carrier`, `ontime`.`Origin` ORDER BY `ontime`.`Carrier` ASC, `ontime`.`Origin` ASC) `source` GROUP BY `source`.`Carrier` ORDER BY `source`.`Carrier` ASC
-- ordered
SELECT count(*) AS `count` FROM `ontime` WHERE (`ontime`.`TailNum` LIKE '%1%' AND `ontime`.`Origin` NOT LIKE 'S%')
-- ordered
SELECT count(*) AS `count` FROM `ontime` WHERE (`ontime`.`TailNum` IS NULL OR `ontime`.`TailNum` = '')
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, sum(CASE WHEN `ontime`.`DepDelayMinutes` > 15 THEN 1 ELSE 0.0 END) AS `late`, count(*) AS `count` FROM `ontime` GROUP BY `ontime`.`Carrier` ORDER BY `ontime`.`Carrier` ASC
-- ordered
SELECT `ontime`.`id` AS `id`, `ontime`.`FlightDate` AS `FlightDate`, `ontime`.`Carrier` AS `Carrier`, `ontime`.`TailNum` AS `TailNum` FROM `ontime` WHERE `ontime`.`Origin` = 'SFO' ORDER BY `ontime`.`id` ASC LIMIT 2000
-- ordered
SELECT `bi_events`.`status` AS `status`, count(*) AS `count`, sum(`bi_events`.`amount`) AS `sum`, avg(`bi_events`.`amount`) AS `avg`, min(`bi_events`.`created_at`) AS `min`, max(`bi_events`.`updated_at`) AS `max` FROM `bi_events` GROUP BY `bi_events`.`status` ORDER BY `bi_events`.`status` ASC
-- ordered
SELECT `bi_events`.`country` AS `country`, count(distinct `bi_events`.`user_id`) AS `count` FROM `bi_events` WHERE `bi_events`.`is_paid` = TRUE GROUP BY `bi_events`.`country` ORDER BY `count` DESC, `bi_events`.`country` ASC LIMIT 10
-- ordered
SELECT CAST(`bi_events`.`created_at` AS date) AS `created_at`, sum(`bi_events`.`amount`) AS `sum` FROM `bi_events` WHERE `bi_events`.`created_at` >= '2016-12-01' GROUP BY CAST(`bi_events`.`created_at` AS date) ORDER BY CAST(`bi_events`.`created_at` AS date) ASC
-- ordered
SELECT count(*) AS `count` FROM `bi_events` WHERE (`bi_events`.`created_at` >= date_add(date(now(6)), INTERVAL -30 year) AND `bi_events`.`created_at` < date(now(6)))
-- ordered
SELECT `bi_events`.`product` AS `product`, count(*) AS `count` FROM `bi_events` WHERE lower(`bi_events`.`product`) LIKE '%gadget%' GROUP BY `bi_events`.`product` ORDER BY `bi_events`.`product` ASC
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, `ontime`.`YearD` AS `YearD`, count(*) AS `count` FROM `ontime` WHERE `ontime`.`YearD` BETWEEN 2000 AND 2003 GROUP BY `ontime`.`Carrier`, `ontime`.`YearD` ORDER BY `ontime`.`Carrier` ASC, `ontime`.`YearD` ASC
-- ordered
SELECT count(distinct `ontime`.`Origin`) AS `count`, count(distinct `ontime`.`Dest`) AS `count_2` FROM `ontime`
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, stddev_pop(`ontime`.`Distance`) AS `stddev` FROM `ontime` GROUP BY `ontime`.`Carrier` ORDER BY `ontime`.`Carrier` ASC
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, count(*) AS `count` FROM `ontime` GROUP BY `ontime`.`Carrier` HAVING count(*) > 2000 ORDER BY `ontime`.`Carrier` ASC
-- Superset (SQLAlchemy mysql dialect)
-- unordered
SELECT `Carrier` AS `Carrier`, count(*) AS `count` FROM `ontime` GROUP BY `Carrier` ORDER BY `count` DESC LIMIT 10000
-- ordered
SELECT DATE(`FlightDate`) AS `__timestamp`, COUNT(*) AS `count` FROM `ontime` WHERE `FlightDate` >= STR_TO_DATE('2008-01-01 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') AND `FlightDate` < STR_TO_DATE('2009-01-01 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') GROUP BY DATE(`FlightDate`) ORDER BY `__timestamp` LIMIT 10000
-- ORDER BY a sum with ties: the order among equal sums is MariaDB's choice.
-- unordered
SELECT DATE(DATE_SUB(`FlightDate`, INTERVAL DAYOFMONTH(`FlightDate`) - 1 DAY)) AS `__timestamp`, SUM(`Distance`) AS `SUM(Distance)` FROM `ontime` GROUP BY DATE(DATE_SUB(`FlightDate`, INTERVAL DAYOFMONTH(`FlightDate`) - 1 DAY)) ORDER BY `SUM(Distance)` DESC LIMIT 10000
-- ordered
SELECT DATE(DATE_SUB(`FlightDate`, INTERVAL DAYOFWEEK(`FlightDate`) - 1 DAY)) AS `__timestamp`, COUNT(*) AS `count` FROM `ontime` WHERE `YearD` = 2010 GROUP BY DATE(DATE_SUB(`FlightDate`, INTERVAL DAYOFWEEK(`FlightDate`) - 1 DAY)) ORDER BY `__timestamp` LIMIT 10000
-- ordered
SELECT MAKEDATE(YEAR(`FlightDate`), 1) + INTERVAL QUARTER(`FlightDate`) QUARTER - INTERVAL 1 QUARTER AS `__timestamp`, COUNT(*) AS `count` FROM `ontime` GROUP BY MAKEDATE(YEAR(`FlightDate`), 1) + INTERVAL QUARTER(`FlightDate`) QUARTER - INTERVAL 1 QUARTER ORDER BY `__timestamp` LIMIT 10000
-- ordered
SELECT DATE(CONCAT(YEAR(`FlightDate`), '-01-01')) AS `__timestamp`, AVG(`ArrDelayMinutes`) AS `AVG(ArrDelayMinutes)` FROM `ontime` GROUP BY DATE(CONCAT(YEAR(`FlightDate`), '-01-01')) ORDER BY `__timestamp` LIMIT 10000
-- ordered
SELECT DATE_ADD(DATE(`created_at`), INTERVAL (HOUR(`created_at`)*60 + MINUTE(`created_at`))*60 + SECOND(`created_at`) SECOND) AS `__timestamp`, COUNT(*) AS `count` FROM `bi_events` WHERE `created_at` >= STR_TO_DATE('2016-12-30 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') GROUP BY DATE_ADD(DATE(`created_at`), INTERVAL (HOUR(`created_at`)*60 + MINUTE(`created_at`))*60 + SECOND(`created_at`) SECOND) ORDER BY `__timestamp` LIMIT 10000
-- ordered
SELECT DATE_ADD(DATE(`created_at`), INTERVAL HOUR(`created_at`) HOUR) AS `__timestamp`, SUM(`amount`) AS `SUM(amount)` FROM `bi_events` WHERE `created_at` >= STR_TO_DATE('2016-11-01 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') AND `created_at` < STR_TO_DATE('2016-11-08 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') GROUP BY DATE_ADD(DATE(`created_at`), INTERVAL HOUR(`created_at`) HOUR) ORDER BY `__timestamp` LIMIT 10000
-- unordered
SELECT `Carrier` AS `Carrier`, `Origin` AS `Origin`, COUNT(*) AS `count` FROM `ontime` JOIN (SELECT `Carrier` AS `Carrier__`, COUNT(*) AS `mme_inner__` FROM `ontime` GROUP BY `Carrier` ORDER BY `mme_inner__` DESC LIMIT 5) AS `anon_1` ON `Carrier` = `Carrier__` GROUP BY `Carrier`, `Origin` ORDER BY `count` DESC LIMIT 10000
-- ordered
SELECT `Carrier` AS `Carrier`, COUNT(DISTINCT `Origin`) AS `COUNT_DISTINCT(Origin)` FROM `ontime` WHERE `DayOfWeek` IN (1, 7) GROUP BY `Carrier` ORDER BY `COUNT_DISTINCT(Origin)` DESC, `Carrier` LIMIT 10000
-- unordered
SELECT `virtual_table`.`Carrier` AS `Carrier`, count(*) AS `count` FROM (SELECT Carrier, Origin, Distance FROM ontime WHERE Distance > 1000) AS virtual_table GROUP BY `virtual_table`.`Carrier` ORDER BY `count` DESC LIMIT 10000
-- unordered
SELECT `Origin` AS `Origin`, SUM(`Distance`) AS `SUM(Distance)` FROM (SELECT Origin, Distance, YearD FROM ontime) AS virtual_table WHERE `YearD` >= 2010 GROUP BY `Origin` ORDER BY `SUM(Distance)` DESC LIMIT 100
-- ordered
SELECT COUNT(*) AS `count` FROM `ontime` WHERE (TRUE) LIMIT 50000
-- ordered
SELECT `status` AS `status`, COUNT(*) AS `count`, SUM(`amount`) AS `SUM(amount)` FROM `bi_events` WHERE `status` IS NOT NULL AND NOT (`status` IN ('cancelled')) GROUP BY `status` ORDER BY `count` DESC, `status` LIMIT 10000
-- ordered
SELECT `Carrier` AS `Carrier`, `YearD` AS `YearD`, sum(`Distance`) AS `SUM(Distance)` FROM `ontime` GROUP BY `Carrier`, `YearD` ORDER BY `SUM(Distance)` DESC, `Carrier`, `YearD` LIMIT 100
-- ordered
SELECT `DayOfWeek` AS `DayOfWeek`, sum(`Cancelled`) * 100.0 / count(*) AS `pct` FROM `ontime` GROUP BY `DayOfWeek` ORDER BY `DayOfWeek`
-- unordered
SELECT `product` AS `product`, `country` AS `country`, count(*) AS `count` FROM `bi_events` GROUP BY `product`, `country` LIMIT 10000
-- Grafana MySQL data source
-- ordered
SELECT UNIX_TIMESTAMP(created_at) DIV 3600 * 3600 AS "time", count(*) AS "events" FROM bi_events WHERE created_at BETWEEN FROM_UNIXTIME(1475280000) AND FROM_UNIXTIME(1477958399) GROUP BY 1 ORDER BY 1
-- ordered
SELECT UNIX_TIMESTAMP(created_at) DIV 300 * 300 AS "time", status AS metric, count(*) AS value FROM bi_events WHERE created_at BETWEEN FROM_UNIXTIME(1480550400) AND FROM_UNIXTIME(1480636800) GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT UNIX_TIMESTAMP(FlightDate) DIV 86400 * 86400 AS "time", sum(Distance) AS distance, avg(ArrDelayMinutes) AS delay FROM ontime WHERE FlightDate BETWEEN FROM_UNIXTIME(1262304000) AND FROM_UNIXTIME(1267401600) GROUP BY 1 ORDER BY 1
-- ordered
SELECT FROM_UNIXTIME(UNIX_TIMESTAMP(created_at) DIV 3600 * 3600) AS time_sec, sum(amount) AS revenue FROM bi_events WHERE created_at >= FROM_UNIXTIME(1480550400) AND created_at <= FROM_UNIXTIME(1481155200) GROUP BY 1 ORDER BY 1
-- ordered
SELECT UNIX_TIMESTAMP(created_at) AS time_sec, amount AS value, product AS metric FROM bi_events WHERE created_at BETWEEN FROM_UNIXTIME(1483056000) AND FROM_UNIXTIME(1483228799) ORDER BY created_at, id
-- ordered
SELECT floor(UNIX_TIMESTAMP(created_at)/(6*3600))*(6*3600) AS "time", country AS metric, sum(amount) AS value FROM bi_events WHERE created_at BETWEEN '2016-12-01T00:00:00Z' AND '2016-12-15T00:00:00Z' AND country IN ('CA','NY','TX') GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT UNIX_TIMESTAMP(FlightDate) DIV 604800 * 604800 AS "time", Carrier AS metric, count(*) AS value FROM ontime WHERE FlightDate BETWEEN FROM_UNIXTIME(1104537600) AND FROM_UNIXTIME(1112313600) AND Carrier IN ('AA','DL') GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT UNIX_TIMESTAMP(updated_at) DIV 86400 * 86400 AS "time", count(*) AS value FROM bi_events WHERE updated_at BETWEEN FROM_UNIXTIME(1480550400) AND FROM_UNIXTIME(1483228800) GROUP BY 1 ORDER BY 1
-- ordered
SELECT Carrier AS __text, Carrier AS __value FROM ontime GROUP BY Carrier ORDER BY Carrier
-- ordered
SELECT DISTINCT Origin FROM ontime WHERE Carrier IN ('AA') ORDER BY Origin
-- Tableau
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, SUM(`ontime`.`Distance`) AS `sum:Distance:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT YEAR(`ontime`.`FlightDate`) AS `yr:FlightDate:ok`, SUM(1) AS `sum:Number of Records:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT (YEAR(`ontime`.`FlightDate`) * 100 + MONTH(`ontime`.`FlightDate`)) AS `yr:FlightDate:ok`, COUNT(`ontime`.`TailNum`) AS `cnt:TailNum:ok` FROM `ontime` WHERE (`ontime`.`YearD` >= 2012) GROUP BY 1 ORDER BY 1
-- ordered
SELECT `ontime`.`Origin` AS `Origin`, COUNT(DISTINCT `ontime`.`Dest`) AS `ctd:Dest:ok` FROM `ontime` GROUP BY 1 HAVING (COUNT(DISTINCT `ontime`.`Dest`) >= 20) ORDER BY 1
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, AVG(`ontime`.`DepDelayMinutes`) AS `avg:DepDelayMinutes:ok`, MIN(`ontime`.`FlightDate`) AS `min:FlightDate:ok`, MAX(`ontime`.`FlightDate`) AS `max:FlightDate:ok` FROM `ontime` WHERE ((`ontime`.`Cancelled` = 0) AND (`ontime`.`Diverted` = 0)) GROUP BY 1 ORDER BY 1
-- ordered
SELECT QUARTER(`ontime`.`FlightDate`) AS `qr:FlightDate:ok`, SUM(`ontime`.`ArrDelayMinutes`) AS `sum:ArrDelayMinutes:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT (CASE WHEN (`ontime`.`Distance` < 500) THEN 'Short' WHEN (`ontime`.`Distance` < 1500) THEN 'Medium' ELSE 'Long' END) AS `Calculation_1`, SUM(1) AS `sum:Number of Records:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier`, SUM((CASE WHEN `ontime`.`ArrDelayMinutes` > 15 THEN 1 ELSE 0 END)) AS `sum:Calculation_late:ok`, SUM(1) AS `sum:Number of Records:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT `t0`.`Origin` AS `Origin`, `t0`.`__measure__0` AS `avg:Calc:ok` FROM (SELECT `ontime`.`Origin` AS `Origin`, AVG(`ontime`.`Distance`) AS `__measure__0` FROM `ontime` GROUP BY 1) `t0` ORDER BY 2 DESC, 1 LIMIT 10
-- unordered
SELECT `ontime`.`Carrier` AS `Carrier`, `ontime`.`Origin` AS `Origin` FROM `ontime` INNER JOIN (SELECT `ontime`.`Carrier` AS `Carrier`, SUM(`ontime`.`Distance`) AS `$__alias__0` FROM `ontime` GROUP BY 1 ORDER BY 2 DESC LIMIT 3) `t0` ON (`ontime`.`Carrier` = `t0`.`Carrier`) GROUP BY 1, 2
-- ordered
SELECT DATE_FORMAT(`bi_events`.`created_at`, '%Y-%m-01 00:00:00') AS `tmn:created_at:ok`, SUM(`bi_events`.`amount`) AS `sum:amount:ok` FROM `bi_events` WHERE (`bi_events`.`created_at` >= TIMESTAMP('2015-01-01 00:00:00')) GROUP BY 1 ORDER BY 1
-- ordered
SELECT TIMESTAMP(DATE_FORMAT(`bi_events`.`created_at`, '%Y-%m-%d %H:00:00')) AS `thr:created_at:ok`, COUNT(1) AS `cnt:id:ok` FROM `bi_events` WHERE `bi_events`.`created_at` >= TIMESTAMP('2016-12-25 00:00:00') GROUP BY 1 ORDER BY 1
-- ordered
SELECT (DATE_ADD(DATE_FORMAT(`ontime`.`FlightDate`, '%Y-%m-01 00:00:00'), INTERVAL 0 SECOND)) AS `tmn:FlightDate:ok` FROM `ontime` WHERE `ontime`.`YearD` = 1999 GROUP BY 1 ORDER BY 1
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier` FROM `ontime` GROUP BY 1 ORDER BY 1 LIMIT 1
-- ordered
SELECT MIN(`ontime`.`FlightDate`) AS `TEMP(attr:FlightDate:min)`, MAX(`ontime`.`FlightDate`) AS `TEMP(attr:FlightDate:max)` FROM `ontime`
-- ordered
SELECT `ontime`.`DayOfWeek` AS `DayOfWeek`, SUM(`ontime`.`Cancelled`) AS `sum:Cancelled:ok`, (SUM(`ontime`.`Cancelled`) / SUM(1)) AS `usr:Calc_rate:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT 1 AS `Number of Records` FROM `ontime` LIMIT 0
-- Looker
-- ordered
SELECT ontime.Carrier  AS `ontime.carrier`, COUNT(*) AS `ontime.count` FROM ontime  AS ontime GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 500
-- ordered
SELECT DATE_FORMAT(ontime.FlightDate ,'%Y-%m') AS `ontime.flight_month`, COUNT(*) AS `ontime.count`, COALESCE(SUM(ontime.Distance ), 0) AS `ontime.total_distance` FROM ontime  AS ontime WHERE ((( ontime.FlightDate  ) >= ((DATE_ADD(TIMESTAMP('2010-01-01'),INTERVAL -12 month))) AND ( ontime.FlightDate  ) < ((DATE_ADD(DATE_ADD(TIMESTAMP('2010-01-01'),INTERVAL -12 month),INTERVAL 12 month))))) GROUP BY 1 ORDER BY 1 DESC LIMIT 500
-- ordered
SELECT DATE(DATE_ADD(ontime.FlightDate ,INTERVAL (0 - MOD((DAYOFWEEK(ontime.FlightDate ) - 1) - 1 + 7, 7)) day)) AS `ontime.flight_week`, COUNT(*) AS `ontime.count` FROM ontime  AS ontime WHERE ontime.YearD = 2014 GROUP BY 1 ORDER BY 1 DESC LIMIT 500
-- ordered
SELECT (DATE(ontime.FlightDate )) AS `ontime.flight_date`, COUNT(DISTINCT ontime.TailNum ) AS `ontime.aircraft_count` FROM ontime  AS ontime WHERE ontime.FlightDate >= '2016-12-01' GROUP BY 1 ORDER BY 1 DESC LIMIT 500
-- ordered
SELECT CONCAT(YEAR(ontime.FlightDate ),'-',LPAD(QUARTER(ontime.FlightDate ),2,'0')) AS `ontime.flight_quarter`, COUNT(*) AS `ontime.count` FROM ontime  AS ontime GROUP BY 1 ORDER BY 1 DESC LIMIT 500
-- ordered
SELECT YEAR(ontime.FlightDate ) AS `ontime.flight_year`, COALESCE(SUM(ontime.Distance ), 0) AS `ontime.total_distance`, AVG(ontime.ArrDelayMinutes ) AS `ontime.average_delay` FROM ontime  AS ontime GROUP BY 1 ORDER BY 1 DESC LIMIT 500
-- ordered
SELECT ontime.Carrier  AS `ontime.carrier`, carriers.name  AS `carriers.name`, COUNT(*) AS `ontime.count` FROM ontime  AS ontime LEFT JOIN carriers  AS carriers ON ontime.Carrier = carriers.code GROUP BY 1,2 ORDER BY 3 DESC, 1 LIMIT 500
-- ordered
SELECT CASE WHEN ontime.Distance  < 0 THEN 'Below 0' WHEN ontime.Distance  >= 0 AND ontime.Distance  < 500 THEN '0 to 499' WHEN ontime.Distance  >= 500 AND ontime.Distance  < 1000 THEN '500 to 999' WHEN ontime.Distance  >= 1000 THEN '1000 or Above' ELSE 'Undefined' END AS `ontime.distance_tier`, COUNT(*) AS `ontime.count` FROM ontime  AS ontime GROUP BY 1 ORDER BY 1 LIMIT 500
-- ordered
SELECT ontime.Carrier  AS `ontime.carrier`, COALESCE(CAST( ( SUM(DISTINCT (CAST(FLOOR(COALESCE(ontime.Distance ,0)*(1000000*1.0)) AS DECIMAL(65,0))) + (CAST(CONV(SUBSTR(MD5(ontime.id ),1,16),16,10) AS DECIMAL(65))*18446744073709551616 + CAST(CONV(SUBSTR(MD5(ontime.id ),17,16),16,10) AS DECIMAL(65))) ) - SUM(DISTINCT (CAST(CONV(SUBSTR(MD5(ontime.id ),1,16),16,10) AS DECIMAL(65))*18446744073709551616 + CAST(CONV(SUBSTR(MD5(ontime.id ),17,16),16,10) AS DECIMAL(65))) )) AS DOUBLE) / CAST((1000000*1.0) AS DOUBLE), 0) AS `ontime.total_distance` FROM ontime AS ontime WHERE ontime.YearD = 2001 GROUP BY 1 ORDER BY 1 LIMIT 500
-- ordered
SELECT COUNT(*) AS `ontime.count` FROM ontime  AS ontime WHERE (ontime.Carrier ) IN ('AA', 'DL') AND (ontime.Origin  LIKE '%A%') LIMIT 1
-- ordered
SELECT bi_events.status  AS `bi_events.status`, COUNT(*) AS `bi_events.count`, COALESCE(SUM(bi_events.amount ), 0) AS `bi_events.total_amount` FROM bi_events  AS bi_events WHERE (bi_events.status IS NULL OR bi_events.status <> 'new') GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT 500
-- ordered
SELECT TIME_FORMAT(bi_events.created_at, '%H') AS `bi_events.created_hour_of_day`, COUNT(*) AS `bi_events.count` FROM bi_events AS bi_events GROUP BY 1 ORDER BY 1 LIMIT 500
-- ordered
SELECT DATE_FORMAT(bi_events.created_at ,'%Y-%m-%d %H') AS `bi_events.created_hour`, COUNT(*) AS `bi_events.count` FROM bi_events AS bi_events WHERE bi_events.created_at >= TIMESTAMP('2016-12-30 00:00:00') GROUP BY 1 ORDER BY 1 DESC LIMIT 500
-- unordered
SELECT * FROM (SELECT *, DENSE_RANK() OVER (ORDER BY z___min_rank) as z___pivot_row_rank, RANK() OVER (PARTITION BY z__pivot_col_rank ORDER BY z___min_rank) as z__pivot_col_ordering FROM (SELECT *, MIN(z___rank) OVER (PARTITION BY `ontime.carrier`) as z___min_rank FROM (SELECT *, RANK() OVER (ORDER BY `ontime.carrier` ASC, z__pivot_col_rank) AS z___rank FROM (SELECT *, DENSE_RANK() OVER (ORDER BY `ontime.flight_year` DESC) AS z__pivot_col_rank FROM (SELECT ontime.Carrier AS `ontime.carrier`, YEAR(ontime.FlightDate) AS `ontime.flight_year`, COUNT(*) AS `ontime.count` FROM ontime AS ontime WHERE ontime.YearD >= 2014 GROUP BY 1,2) ww) bb WHERE z__pivot_col_rank <= 16384) aa) xx) zz WHERE (z__pivot_col_rank <= 50 OR z__pivot_col_ordering = 1) AND z___pivot_row_rank <= 500
-- Power BI
-- ordered
select `Carrier`, `C1` from (select `Carrier`, count(1) as `C1` from `ontime`.`ontime` group by `Carrier`) as `ITBL` order by `Carrier`
-- ordered
select `_`.`Carrier`, `_`.`a0` from (select `rows`.`Carrier` as `Carrier`, sum(`rows`.`Distance`) as `a0` from (select `_`.`Carrier`, `_`.`Distance` from `ontime`.`ontime` as `_` where `_`.`YearD` = 2010) as `rows` group by `Carrier`) as `_` where not `_`.`a0` is null order by `_`.`Carrier` limit 1000001
-- ordered
select `_`.`YearD`, `_`.`MonthD`, `_`.`a0`, `_`.`a1` from (select `rows`.`YearD` as `YearD`, `rows`.`MonthD` as `MonthD`, count(1) as `a0`, avg(`rows`.`ArrDelayMinutes`) as `a1` from `ontime`.`ontime` as `rows` where `rows`.`YearD` in (2015, 2016) group by `YearD`, `MonthD`) as `_` order by `_`.`YearD`, `_`.`MonthD` limit 1000001
-- ordered
select count(distinct(`Origin`)) as `a0` from `ontime`.`ontime`
-- ordered
select `_`.`Origin`, `_`.`a0` from (select `Origin`, count(distinct(`Dest`)) as `a0` from `ontime`.`ontime` group by `Origin`) as `_` where `_`.`a0` > 25 order by `_`.`Origin` limit 1000001
-- ordered
select `$Table`.`Carrier`, `$Table`.`Origin`, `$Table`.`Distance` from `ontime`.`ontime` as `$Table` where `$Table`.`id` < 300 order by `$Table`.`id` limit 1000
-- ordered
select `_`.`c`, count(1) as `a0` from (select case when `Distance` >= 1000 then 'far' else 'near' end as `c` from `ontime`.`ontime`) as `_` group by `_`.`c` order by `_`.`c`
-- ordered
select `_`.`status`, `_`.`a0`, `_`.`a1` from (select `status`, sum(`amount`) as `a0`, count(`amount`) as `a1` from `ontime`.`bi_events` where `created_at` >= '2016-01-01 00:00:00' and `created_at` < '2017-01-01 00:00:00' group by `status`) as `_` order by `_`.`status`
-- Redash
-- ordered
SELECT Carrier, COUNT(*) AS flights, ROUND(AVG(ArrDelayMinutes), 2) AS avg_delay, TRUNCATE(AVG(DepDelayMinutes), 1) AS avg_dep FROM ontime GROUP BY Carrier ORDER BY flights DESC, Carrier
-- ordered
SELECT DATE_FORMAT(FlightDate, '%Y-%m') AS month, COUNT(*) AS flights, SUM(Cancelled) AS cancelled, ROUND(SUM(Cancelled) * 100.0 / COUNT(*), 2) AS cancel_pct FROM ontime WHERE YearD >= 2014 GROUP BY month ORDER BY month
-- ordered
SELECT YEARWEEK(FlightDate) AS yw, COUNT(*) FROM ontime WHERE YearD = 2016 GROUP BY yw ORDER BY yw
-- ordered
SELECT WEEK(FlightDate, 3) AS iso_week, COUNT(*) FROM ontime WHERE YearD = 2015 GROUP BY iso_week ORDER BY iso_week
-- ordered
SELECT EXTRACT(YEAR_MONTH FROM FlightDate) AS ym, COUNT(*) FROM ontime WHERE YearD = 2011 GROUP BY ym ORDER BY ym
-- ordered
SELECT EXTRACT(HOUR FROM created_at) AS h, COUNT(*), SUM(amount) FROM bi_events GROUP BY h ORDER BY h
-- ordered
SELECT LOWER(Carrier) AS c, UPPER(Origin) AS o, COUNT(*) FROM ontime WHERE YearD = 2003 GROUP BY c, o ORDER BY 3 DESC, c, o LIMIT 20
-- ordered
SELECT CONCAT(Origin, '-', Dest) AS route, COUNT(*) AS n FROM ontime GROUP BY route ORDER BY n DESC, route LIMIT 25
-- ordered
SELECT SUBSTRING(TailNum, 1, 2) AS prefix, COUNT(*) FROM ontime GROUP BY prefix ORDER BY prefix
-- ordered
SELECT TRIM(status) AS s, COUNT(*) FROM bi_events GROUP BY s ORDER BY s
-- ordered
SELECT COALESCE(status, '(null)') AS status, COUNT(*) FROM bi_events GROUP BY COALESCE(status, '(null)') ORDER BY 1
-- ordered
SELECT IFNULL(country, 'Unknown') AS country, COUNT(DISTINCT user_id) AS users, SUM(amount) AS revenue FROM bi_events GROUP BY 1 ORDER BY revenue DESC, 1 LIMIT 15
-- ordered
SELECT Carrier, SUM(CASE WHEN DayOfWeek IN (6, 7) THEN 1 ELSE 0 END) AS weekend, SUM(CASE WHEN DayOfWeek NOT IN (6, 7) THEN 1 ELSE 0 END) AS weekday, SUM(IF(Cancelled = 1, 1, 0)) AS cancelled FROM ontime GROUP BY Carrier ORDER BY Carrier
-- ordered
SELECT YearD, SUM(CASE WHEN Carrier = 'AA' THEN Distance END) AS `AA`, SUM(CASE WHEN Carrier = 'DL' THEN Distance END) AS `DL`, SUM(CASE WHEN Carrier = 'UA' THEN Distance END) AS `UA` FROM ontime GROUP BY YearD ORDER BY YearD
-- ordered
SELECT o.Origin, COUNT(*) AS n FROM ontime o JOIN (SELECT Origin FROM ontime GROUP BY Origin ORDER BY COUNT(*) DESC, Origin LIMIT 5) t USING (Origin) WHERE o.YearD = 2008 GROUP BY o.Origin ORDER BY n DESC, o.Origin
-- ordered
SELECT Carrier, n, RANK() OVER (ORDER BY n DESC) AS rnk FROM (SELECT Carrier, COUNT(*) AS n FROM ontime GROUP BY Carrier) t ORDER BY rnk, Carrier
-- ordered
SELECT YearD, n, SUM(n) OVER (ORDER BY YearD) AS running FROM (SELECT YearD, COUNT(*) AS n FROM ontime GROUP BY YearD) t ORDER BY YearD
-- ordered
SELECT Carrier, YearD, n, ROW_NUMBER() OVER (PARTITION BY Carrier ORDER BY n DESC, YearD) AS rn FROM (SELECT Carrier, YearD, COUNT(*) AS n FROM ontime GROUP BY Carrier, YearD) t ORDER BY Carrier, rn
-- MariaDB 10.11 ignores this ORDER BY (a window over an aggregate): its
-- row order differs between runs on one server.
-- unordered
SELECT Carrier, COUNT(*) AS n, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS share FROM ontime GROUP BY Carrier ORDER BY Carrier
-- ordered
SELECT Carrier, COUNT(*) AS n, LAG(COUNT(*)) OVER (ORDER BY Carrier) AS prev FROM ontime GROUP BY Carrier ORDER BY Carrier
-- ordered
SELECT FLOOR(ArrDelayMinutes / 10) * 10 AS bucket, COUNT(*) FROM ontime WHERE ArrDelayMinutes IS NOT NULL GROUP BY bucket ORDER BY bucket
-- ordered
SELECT Carrier, COUNT(*) AS n FROM ontime WHERE FlightDate BETWEEN '2010-01-01' AND '2010-12-31' GROUP BY Carrier HAVING n > 100 ORDER BY n DESC, Carrier
-- ordered
SELECT QUARTER(FlightDate) AS q, YEAR(FlightDate) AS y, COUNT(*) FROM ontime WHERE YearD >= 2015 GROUP BY y, q ORDER BY y, q
-- ordered
SELECT DATE(created_at) AS day, COUNT(*) AS n, COUNT(DISTINCT user_id) AS dau FROM bi_events WHERE created_at >= '2016-12-01' GROUP BY DATE(created_at) ORDER BY day
-- ordered
SELECT u8 AS `city name`, l1 AS `latin.name`, COUNT(*) AS `row count`, SUM(amount) AS `sum.amount` FROM mixed_cs GROUP BY u8, l1 ORDER BY 1, 2
-- ordered
SELECT DATE_FORMAT(day, '%Y-%m') AS m, ROUND(AVG(amount), 2) AS a, MAX(d) FROM mixed_cs GROUP BY m ORDER BY m DESC LIMIT 12
-- ordered
SELECT Carrier, GROUP_CONCAT(DISTINCT Origin ORDER BY Origin SEPARATOR ', ') AS origins, COUNT(*) FROM ontime WHERE FlightDate BETWEEN '2016-12-01' AND '2016-12-31' GROUP BY Carrier ORDER BY Carrier
-- ordered
SELECT COUNT(DISTINCT CONCAT(Origin, '>', Dest)) AS routes, COUNT(DISTINCT TailNum) AS planes FROM ontime WHERE YearD = 2012
-- ordered
SELECT status, AVG(TIMESTAMPDIFF(SECOND, created_at, updated_at)) AS avg_secs, MAX(TIMESTAMPDIFF(MINUTE, created_at, updated_at)) AS max_mins, SUM(DATEDIFF(updated_at, created_at)) AS days FROM bi_events GROUP BY status ORDER BY status
-- Metabase with a report time zone (CONVERT_TZ in the SQL)
-- ordered
SELECT date(convert_tz(`bi_events`.`created_at`, '+00:00', '-05:00')) AS `created_at`, count(*) AS `count` FROM `bi_events` WHERE `bi_events`.`created_at` >= convert_tz('2016-12-20 00:00:00.000', '-05:00', '+00:00') GROUP BY date(convert_tz(`bi_events`.`created_at`, '+00:00', '-05:00')) ORDER BY date(convert_tz(`bi_events`.`created_at`, '+00:00', '-05:00')) ASC
-- ordered
SELECT hour(convert_tz(`bi_events`.`updated_at`, '+00:00', '+09:00')) AS `updated_at`, count(*) AS `count` FROM `bi_events` GROUP BY hour(convert_tz(`bi_events`.`updated_at`, '+00:00', '+09:00')) ORDER BY hour(convert_tz(`bi_events`.`updated_at`, '+00:00', '+09:00')) ASC
-- Superset minute grain, time range probe
-- ordered
SELECT DATE_FORMAT(`created_at`, '%Y-%m-%d %H:%i:00') AS `__timestamp`, COUNT(*) AS `count` FROM `bi_events` WHERE `created_at` >= STR_TO_DATE('2016-12-31 00:00:00.000000', '%Y-%m-%d %H:%i:%s.%f') GROUP BY DATE_FORMAT(`created_at`, '%Y-%m-%d %H:%i:00') ORDER BY `__timestamp` LIMIT 10000
-- ordered
SELECT MIN(`created_at`) AS `min`, MAX(`created_at`) AS `max`, COUNT(*) AS `count` FROM `bi_events` WHERE `country` IN ('CA', 'TX')
-- Tableau calculations
-- ordered
SELECT `bi_events`.`product` AS `product`, SUM(IF(`bi_events`.`is_paid` = 1, `bi_events`.`amount`, 0)) AS `sum:paid:ok`, CAST(SUM(`bi_events`.`user_id`) AS SIGNED) AS `sum:uid:ok`, TRUNCATE(AVG(`bi_events`.`score`), 0) AS `avg:score:ok` FROM `bi_events` GROUP BY 1 ORDER BY 1
-- ordered
SELECT MOD(`ontime`.`FlightNum`, 10) AS `Calculation_digit`, COUNT(DISTINCT `ontime`.`Carrier`) AS `ctd:Carrier:ok`, SUM(`ontime`.`Diverted`) AS `sum:Diverted:ok` FROM `ontime` GROUP BY 1 ORDER BY 1
-- ordered
SELECT `ontime`.`Carrier` AS `Carrier` FROM `ontime` WHERE (`ontime`.`Carrier` IN ('AA', 'DL', 'UA')) GROUP BY 1 ORDER BY 1
-- ordered
SELECT (CASE WHEN `bi_events`.`amount` IS NULL THEN 'Null' WHEN `bi_events`.`amount` < 100 THEN 'Small' ELSE 'Large' END) AS `amt_bucket`, `bi_events`.`is_paid` AS `is_paid`, COUNT(1) AS `cnt`, ROUND(AVG(`bi_events`.`amount`), 2) AS `avg_amt` FROM `bi_events` GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT UPPER(TRIM(`bi_events`.`status`)) AS `s`, SUBSTRING(`bi_events`.`product`, 1, 6) AS `p`, COUNT(*) AS `n` FROM `bi_events` WHERE `bi_events`.`product` LIKE 'G%' GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT YEAR(`ontime`.`FlightDate`) AS `yr`, ROUND(SUM(`ontime`.`ArrDelayMinutes`) / COUNT(`ontime`.`ArrDelayMinutes`), 3) AS `avg_delay`, SUM(`ontime`.`Distance`) * 1.0 / COUNT(DISTINCT `ontime`.`TailNum`) AS `per_plane` FROM `ontime` GROUP BY 1 ORDER BY 1
