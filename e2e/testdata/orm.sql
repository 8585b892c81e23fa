-- What ORMs and web applications send: statements written as Django,
-- Rails ActiveRecord, Hibernate, SQLAlchemy, Laravel Eloquent, GORM,
-- Sequelize, Prisma and admin panels (Django admin, Adminer, phpMyAdmin)
-- generate them, over orm_users and orm_posts (e2e/orm_test.go creates
-- them: an AUTO_INCREMENT key, DATETIME(6) and TIMESTAMP(6) columns, an
-- ENUM, a nullable DECIMAL, a soft-delete column, titles with % and _,
-- names with accents, trailing spaces and mixed case). TestORMSQL runs
-- each with diff() and checks the share that runs distributed.
--
-- Format as testdata/regressions.sql: one statement per line, the line
-- before it "-- ordered" (its ORDER BY is total) or "-- unordered"; other
-- "--" lines are comments.

-- Django: QuerySet.count(), exists(), first(), get(), repr's LIMIT 21
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`status` = 'published'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE (`orm_posts`.`deleted_at` IS NULL AND `orm_posts`.`user_id` = 17)
-- ordered
SELECT (1) AS `a` FROM `orm_users` WHERE `orm_users`.`username` = 'user100' LIMIT 1
-- ordered
SELECT (1) AS `a` FROM `orm_posts` WHERE (`orm_posts`.`user_id` = 5 AND `orm_posts`.`status` = 'draft') LIMIT 1
-- ordered
SELECT (1) AS `a` FROM `orm_posts` WHERE `orm_posts`.`slug` = 'no-such-slug' LIMIT 1
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`user_id`, `orm_posts`.`title`, `orm_posts`.`slug`, `orm_posts`.`status`, `orm_posts`.`views`, `orm_posts`.`rating`, `orm_posts`.`published_at`, `orm_posts`.`created_at`, `orm_posts`.`updated_at`, `orm_posts`.`deleted_at` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 17 ORDER BY `orm_posts`.`created_at` DESC, `orm_posts`.`id` DESC LIMIT 21
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title`, `orm_posts`.`created_at` FROM `orm_posts` ORDER BY `orm_posts`.`id` ASC LIMIT 1
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title`, `orm_posts`.`created_at` FROM `orm_posts` ORDER BY `orm_posts`.`id` DESC LIMIT 1
-- ordered
SELECT `orm_users`.`id`, `orm_users`.`password`, `orm_users`.`last_login`, `orm_users`.`is_superuser`, `orm_users`.`username`, `orm_users`.`first_name`, `orm_users`.`last_name`, `orm_users`.`email`, `orm_users`.`is_staff`, `orm_users`.`is_active`, `orm_users`.`date_joined` FROM `orm_users` WHERE `orm_users`.`id` = 100 LIMIT 21
-- ordered
SELECT `orm_users`.`id`, `orm_users`.`username` FROM `orm_users` WHERE `orm_users`.`username` LIKE 'USER10%' ORDER BY `orm_users`.`id` ASC
-- Django lookups: contains (LIKE BINARY), icontains, startswith, iexact, regex, in, range, isnull
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`title` LIKE BINARY '%Gadget%'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`title` LIKE '%gadget%'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`title` LIKE BINARY 'Gizmo%'
-- ordered
SELECT `orm_users`.`id`, `orm_users`.`first_name` FROM `orm_users` WHERE `orm_users`.`first_name` LIKE 'emile' ORDER BY `orm_users`.`id` ASC
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title` FROM `orm_posts` WHERE `orm_posts`.`title` LIKE BINARY '%100\%%' ORDER BY `orm_posts`.`id` ASC LIMIT 30
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`title` LIKE '%snake\_case%'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`title` REGEXP BINARY '^[A-Z][a-z]+ [0-9]'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`title` REGEXP '^gizmo'
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title`, `orm_posts`.`views` FROM `orm_posts` WHERE `orm_posts`.`id` IN (2, 88, 174, 338, 424, 674, 760, 924, 1010, 1260, 1346, 1596, 1682, 1846, 1932, 2182, 2268, 2518, 2604, 2768, 2854, 3104, 3190, 3354, 3440, 3526, 3690, 3776, 4026, 4112, 4276, 4362, 4612, 4698, 4948, 5034, 5198, 5284, 5534, 5620, 5870, 5956, 6120, 6206, 6456, 6542, 6706, 6792, 7042, 7128, 7378, 7464, 7628, 7714, 7964, 8050, 8300, 8386, 8550, 8636, 8886, 8972, 9222, 9308, 9472, 9558, 9808, 9894, 10058, 10144, 10394, 10480, 10730, 10816, 10980, 11066, 11316, 11402, 11652, 11738, 11902, 11988, 12238, 12324, 12574, 12660, 12824, 12910, 13160, 13246, 13410, 13496, 13746, 13832, 14082, 14168, 14332, 14418, 14668, 14754, 15004, 15090, 15254, 15340, 15590, 15676, 15840, 15926, 16012, 16176, 16262, 16512, 16598, 16762, 16848, 17098, 17184, 17434, 17520, 17684, 17770, 18020, 18106, 18356, 18442, 18606, 18692, 18942, 19028, 19192, 19278, 19364, 19528, 19614, 19864, 19950, 20114, 20200, 20450, 20536, 20786, 20872, 21036, 21122, 21372, 21458, 21708, 21794, 21958, 22044, 22294, 22380, 22544, 22630, 22880, 22966, 23216, 23302, 23466, 23552, 23802, 23888, 24138, 24224, 24388, 24474, 24724, 24810, 25060, 25146, 25310, 25396, 25646, 25732, 25896, 25982, 26232, 26318, 26568, 26654, 26818, 26904, 27154, 27240, 27490, 27576, 27740, 27826, 28076, 28162, 28412, 28498, 28662, 28748, 28998, 29084, 29248, 29334, 29584, 29670, 29920, 30006, 30170, 30256, 30506, 30592, 30842, 30928, 31092, 31178, 31428, 31514, 31678, 31764, 31850, 32014, 32100, 32350, 32436, 32600, 32686, 32936, 33022, 33272, 33358, 33522, 33608, 33858, 33944, 34194, 34280, 34444, 34530, 34780, 34866, 35030, 35116, 35366, 35452, 35702, 35788, 35952, 36038, 36288, 36374, 36624, 36710, 36874, 36960, 37210, 37296, 37546, 37632, 37796, 37882, 38132, 38218, 38382, 38468, 38718, 38804, 39054, 39140, 39304, 39390, 39640, 39726, 39976, 40062, 40226, 40312, 40562, 40648, 40898, 40984, 41148, 41234, 41484, 41570, 41734, 41820, 42070, 42156, 42406, 42492, 42656, 42742, 42992, 43078, 43328, 43414, 43578, 43664, 43914, 44000, 44250, 44336, 44500, 44586, 44836, 44922, 45086, 45172, 45422, 45508, 45758, 45844, 46008, 46094, 46344, 46430, 46680, 46766, 46930, 47016, 47266, 47352, 47516, 47602, 47688, 47852, 47938, 48188, 48274, 48438, 48524, 48774, 48860, 49110, 49196, 49360, 49446, 49696, 49782, 50032, 50118, 50282, 50368, 50618, 50704, 50868, 50954, 51204, 51290, 51540, 51626, 51790, 51876, 52126, 52212, 52462, 52548, 52712, 52798, 53048, 53134, 53384, 53470, 53634, 53720, 53970, 54056, 54220, 54306, 54556, 54642, 54892, 54978, 55142, 55228, 55478, 55564, 55814, 55900, 56064, 56150, 56400, 56486, 56736, 56822, 56986, 57072, 57322, 57408, 57572, 57658, 57908, 57994, 58244, 58330, 58494, 58580, 58830, 58916, 59166, 59252, 59416, 59502, 59752, 59838) ORDER BY `orm_posts`.`id` ASC
-- unordered
SELECT `orm_posts`.`id`, `orm_posts`.`user_id`, `orm_posts`.`rating` FROM `orm_posts` WHERE `orm_posts`.`user_id` IN (1, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 361, 362, 363, 364, 365, 366, 367, 368, 369, 370, 371, 398, 399, 400, 401, 402, 403, 404, 405, 406, 407, 408, 435, 436, 437, 438, 439, 440, 441, 442, 443, 444, 445, 472, 473, 474, 475, 476, 477, 478, 479, 480, 481, 482, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518, 519, 546, 547, 548, 549, 550, 551, 552, 553, 554, 555, 556, 583, 584, 585, 586, 587, 588, 589, 590, 591, 592, 593, 620, 621, 622, 623, 624, 625, 626, 627, 628, 629, 630, 657, 658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 694, 695, 696, 697, 698, 699, 700, 701, 702, 703, 704, 731, 732, 733, 734, 735, 736, 737, 738, 739, 740, 741, 768, 769, 770, 771, 772, 773, 774, 775, 776, 777, 778, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 842, 843, 844, 845, 846, 847, 848, 849, 850, 851, 852, 879, 880, 881, 882, 883, 884, 885, 886, 887, 888, 889, 916, 917, 918, 919, 920, 921, 922, 923, 924, 925, 926, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999, 1000)
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`user_id` NOT IN (1, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 361, 362, 363, 364, 365, 366, 367, 368, 369, 370, 371, 398, 399, 400, 401, 402, 403, 404, 405, 406, 407, 408, 435, 436, 437, 438, 439, 440, 441, 442, 443, 444, 445, 472, 473, 474, 475, 476, 477, 478, 479, 480, 481, 482, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518, 519, 546, 547, 548, 549, 550, 551, 552, 553, 554, 555, 556, 583, 584, 585, 586, 587, 588, 589, 590, 591, 592, 593, 620, 621, 622, 623, 624, 625, 626, 627, 628, 629, 630, 657, 658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 694, 695, 696, 697, 698, 699, 700, 701, 702, 703, 704, 731, 732, 733, 734, 735, 736, 737, 738, 739, 740, 741, 768, 769, 770, 771, 772, 773, 774, 775, 776, 777, 778, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 842, 843, 844, 845, 846, 847, 848, 849, 850, 851, 852, 879, 880, 881, 882, 883, 884, 885, 886, 887, 888, 889, 916, 917, 918, 919, 920, 921, 922, 923, 924, 925, 926, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999, 1000)
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`created_at` BETWEEN '2005-01-01 00:00:00' AND '2005-12-31 23:59:59.999999'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`published_at` IS NULL
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE NOT (`orm_posts`.`rating` IS NULL) AND `orm_posts`.`rating` >= 4.5
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`created_at` >= '2010-01-01 00:00:00' AND `orm_posts`.`created_at` < '2010-02-01 00:00:00'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`views` > 500 AND NOT (`orm_posts`.`status` = 'archived')
-- Django date lookups and truncation (Trunc*, Extract*, dates(), date_hierarchy)
-- ordered
SELECT CAST(DATE_FORMAT(`orm_posts`.`created_at`, '%Y-%m-01 00:00:00') AS DATETIME) AS `month`, COUNT(`orm_posts`.`id`) AS `c` FROM `orm_posts` GROUP BY CAST(DATE_FORMAT(`orm_posts`.`created_at`, '%Y-%m-01 00:00:00') AS DATETIME) ORDER BY `month` ASC
-- ordered
SELECT CAST(DATE_FORMAT(`orm_posts`.`created_at`, '%Y-01-01 00:00:00') AS DATETIME) AS `year`, SUM(`orm_posts`.`views`) AS `views` FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT DISTINCT CAST(DATE_FORMAT(`orm_posts`.`created_at`, '%Y-01-01 00:00:00') AS DATETIME) AS `datefield` FROM `orm_posts` WHERE `orm_posts`.`created_at` IS NOT NULL ORDER BY `datefield` ASC
-- ordered
SELECT DISTINCT CAST(DATE_FORMAT(`orm_posts`.`created_at`, '%Y-%m-01 00:00:00') AS DATETIME) AS `datefield` FROM `orm_posts` WHERE (`orm_posts`.`created_at` BETWEEN '2008-01-01 00:00:00' AND '2008-12-31 23:59:59.999999' AND `orm_posts`.`created_at` IS NOT NULL) ORDER BY `datefield` ASC
-- ordered
SELECT CAST(`orm_posts`.`created_at` AS DATE) AS `day`, COUNT(`orm_posts`.`id`) AS `c` FROM `orm_posts` WHERE `orm_posts`.`created_at` >= '2012-03-01 00:00:00' AND `orm_posts`.`created_at` < '2012-04-01 00:00:00' GROUP BY CAST(`orm_posts`.`created_at` AS DATE) ORDER BY `day` ASC
-- ordered
SELECT STR_TO_DATE(DATE_FORMAT(`orm_posts`.`created_at`, '%x%v-1'), '%x%v-%w') AS `week`, COUNT(`orm_posts`.`id`) AS `c` FROM `orm_posts` WHERE `orm_posts`.`created_at` >= '2011-01-01 00:00:00' AND `orm_posts`.`created_at` < '2011-04-01 00:00:00' GROUP BY 1 ORDER BY 1
-- ordered
SELECT MAKEDATE(YEAR(`orm_posts`.`created_at`), 1) + INTERVAL QUARTER(`orm_posts`.`created_at`) QUARTER - INTERVAL 1 QUARTER AS `quarter`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT CAST(DATE_FORMAT(`orm_posts`.`created_at`, '%Y-%m-%d %H:00:00') AS DATETIME) AS `hour`, COUNT(*) AS `c` FROM `orm_posts` WHERE `orm_posts`.`created_at` >= '2014-06-01' AND `orm_posts`.`created_at` < '2014-06-08' GROUP BY 1 ORDER BY 1
-- ordered
SELECT EXTRACT(YEAR FROM `orm_posts`.`created_at`) AS `year`, EXTRACT(MONTH FROM `orm_posts`.`created_at`) AS `month`, COUNT(*) AS `c` FROM `orm_posts` WHERE `orm_posts`.`created_at` >= '2015-01-01' GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT DAYOFWEEK(`orm_posts`.`created_at`) AS `week_day`, ((DAYOFWEEK(`orm_posts`.`created_at`) + 5) % 7) + 1 AS `iso_week_day`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY 1, 2 ORDER BY 1
-- ordered
SELECT WEEK(`orm_posts`.`created_at`, 3) AS `week`, COUNT(*) AS `c` FROM `orm_posts` WHERE `orm_posts`.`created_at` BETWEEN '2009-01-01 00:00:00' AND '2009-12-31 23:59:59.999999' GROUP BY 1 ORDER BY 1
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE EXTRACT(YEAR FROM `orm_posts`.`published_at`) = 2013 AND EXTRACT(MONTH FROM `orm_posts`.`published_at`) = 7
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE DAYOFWEEK(`orm_posts`.`created_at`) = 1
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE TIME(`orm_posts`.`created_at`) BETWEEN '09:00:00' AND '17:00:00'
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE HOUR(`orm_posts`.`created_at`) = 12
-- Django with USE_TZ and a named zone: without time zone tables CONVERT_TZ is NULL on both
-- ordered
SELECT CAST(DATE_FORMAT(CONVERT_TZ(`orm_posts`.`created_at`, 'UTC', 'Europe/Paris'), '%Y-%m-01 00:00:00') AS DATETIME) AS `month`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT CAST(CONVERT_TZ(`orm_posts`.`created_at`, '+00:00', '+05:30') AS DATE) AS `day`, COUNT(*) AS `c` FROM `orm_posts` WHERE `orm_posts`.`created_at` >= '2016-12-01' GROUP BY 1 ORDER BY 1
-- ordered
SELECT EXTRACT(HOUR FROM CONVERT_TZ(`orm_posts`.`created_at`, '+00:00', '-08:00')) AS `hour`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- Django annotate/aggregate, Coalesce, Cast, Concat (CONCAT_WS), functions
-- ordered
SELECT MAX(`orm_posts`.`id`) AS `id__max`, MIN(`orm_posts`.`created_at`) AS `created_at__min`, AVG(`orm_posts`.`rating`) AS `rating__avg`, SUM(`orm_posts`.`views`) AS `views__sum` FROM `orm_posts`
-- ordered
SELECT COUNT(DISTINCT `orm_posts`.`user_id`) AS `user__count` FROM `orm_posts` WHERE `orm_posts`.`status` = 'published'
-- ordered
SELECT `orm_posts`.`status`, COUNT(`orm_posts`.`id`) AS `n`, AVG(`orm_posts`.`rating`) AS `avg_rating`, MAX(`orm_posts`.`published_at`) AS `last` FROM `orm_posts` GROUP BY `orm_posts`.`status` ORDER BY `orm_posts`.`status` ASC
-- unordered
SELECT `orm_posts`.`status`, COUNT(`orm_posts`.`id`) AS `n` FROM `orm_posts` GROUP BY `orm_posts`.`status` ORDER BY NULL
-- ordered
SELECT `orm_posts`.`user_id`, COUNT(`orm_posts`.`id`) AS `n`, SUM(`orm_posts`.`views`) AS `v` FROM `orm_posts` GROUP BY `orm_posts`.`user_id` HAVING COUNT(`orm_posts`.`id`) > 35 ORDER BY `n` DESC, `orm_posts`.`user_id` ASC
-- ordered
SELECT `orm_posts`.`id`, COALESCE(`orm_posts`.`published_at`, `orm_posts`.`created_at`) AS `shown_at`, IFNULL(`orm_posts`.`rating`, 0) AS `r` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 42 ORDER BY `orm_posts`.`id` ASC
-- ordered
SELECT COALESCE(`orm_posts`.`rating`, 0) AS `r`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT SUM(COALESCE(`orm_posts`.`rating`, 0)) AS `total`, COUNT(`orm_posts`.`rating`) AS `rated`, COUNT(*) AS `all` FROM `orm_posts`
-- ordered
SELECT `orm_posts`.`id`, CAST(`orm_posts`.`views` AS char) AS `views_text`, CAST(`orm_posts`.`rating` AS signed integer) AS `r_int`, CAST(`orm_posts`.`views` AS decimal(10, 2)) AS `v_dec`, CAST(`orm_posts`.`rating` AS double) AS `r_dbl` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 99 ORDER BY `orm_posts`.`id` ASC
-- ordered
SELECT `orm_users`.`id`, CONCAT_WS('', `orm_users`.`first_name`, ' ', `orm_users`.`last_name`) AS `full_name`, CHAR_LENGTH(`orm_users`.`first_name`) AS `len`, UPPER(`orm_users`.`email`) AS `e`, LOWER(`orm_users`.`username`) AS `u` FROM `orm_users` WHERE `orm_users`.`id` < 60 ORDER BY `orm_users`.`id` ASC
-- ordered
SELECT `orm_users`.`id`, SUBSTRING(`orm_users`.`email`, 1, 5) AS `s`, INSTR(`orm_users`.`email`, '@') AS `at`, LPAD(`orm_users`.`id`, 6, '0') AS `p`, REPLACE(`orm_users`.`email`, '.', '_') AS `r`, REVERSE(`orm_users`.`username`) AS `rev`, TRIM(`orm_users`.`first_name`) AS `t`, LEFT(`orm_users`.`last_name`, 2) AS `l`, RIGHT(`orm_users`.`email`, 4) AS `rr` FROM `orm_users` WHERE `orm_users`.`id` BETWEEN 100 AND 160 ORDER BY `orm_users`.`id` ASC
-- ordered
SELECT `orm_users`.`id`, MD5(`orm_users`.`email`) AS `m`, SHA1(`orm_users`.`username`) AS `s`, SHA2(`orm_users`.`username`, 256) AS `s2` FROM `orm_users` WHERE `orm_users`.`id` < 30 ORDER BY `orm_users`.`id` ASC
-- ordered
SELECT `orm_posts`.`id`, GREATEST(`orm_posts`.`created_at`, COALESCE(`orm_posts`.`published_at`, `orm_posts`.`created_at`)) AS `g`, LEAST(`orm_posts`.`views`, 100) AS `l`, ABS(`orm_posts`.`views` - 500) AS `a`, ROUND(`orm_posts`.`rating`, 1) AS `rr` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 7 ORDER BY `orm_posts`.`id` ASC
-- ordered
SELECT STDDEV_POP(`orm_posts`.`views`) AS `sd`, VAR_SAMP(`orm_posts`.`views`) AS `v` FROM `orm_posts`
-- ordered
SELECT `orm_posts`.`status`, CASE WHEN `orm_posts`.`views` >= 500 THEN 'popular' WHEN `orm_posts`.`views` >= 100 THEN 'ok' ELSE 'quiet' END AS `bucket`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY 1, 2 ORDER BY 1, 2
-- ordered
SELECT COUNT(CASE WHEN `orm_posts`.`status` = 'published' THEN `orm_posts`.`id` ELSE NULL END) AS `published`, COUNT(CASE WHEN `orm_posts`.`deleted_at` IS NOT NULL THEN 1 END) AS `deleted` FROM `orm_posts`
-- ordered
SELECT COUNT(*) AS `__count` FROM (SELECT DISTINCT `orm_posts`.`user_id` AS `col1` FROM `orm_posts` WHERE `orm_posts`.`status` = 'published') `subquery`
-- ordered
SELECT `orm_users`.`id`, `orm_users`.`username`, (SELECT U0.`title` FROM `orm_posts` U0 WHERE U0.`user_id` = (`orm_users`.`id`) ORDER BY U0.`created_at` DESC, U0.`id` DESC LIMIT 1) AS `latest` FROM `orm_users` WHERE `orm_users`.`id` < 40 ORDER BY `orm_users`.`id` ASC
-- ordered
SELECT `orm_users`.`id`, EXISTS(SELECT (1) AS `a` FROM `orm_posts` U0 WHERE (U0.`status` = 'published' AND U0.`user_id` = (`orm_users`.`id`)) LIMIT 1) AS `has_pub` FROM `orm_users` WHERE `orm_users`.`id` < 200 ORDER BY `orm_users`.`id` ASC
-- ordered
SELECT `orm_users`.`id`, `orm_users`.`username`, COUNT(`orm_posts`.`id`) AS `post_count` FROM `orm_users` LEFT OUTER JOIN `orm_posts` ON (`orm_users`.`id` = `orm_posts`.`user_id`) GROUP BY `orm_users`.`id` ORDER BY `post_count` DESC, `orm_users`.`id` ASC LIMIT 10
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title`, `orm_users`.`username` FROM `orm_posts` INNER JOIN `orm_users` ON (`orm_posts`.`user_id` = `orm_users`.`id`) WHERE `orm_users`.`is_staff` ORDER BY `orm_posts`.`id` DESC LIMIT 25
-- ordered
SELECT `orm_users`.`is_staff`, COUNT(`orm_posts`.`id`) AS `n`, SUM(`orm_posts`.`views`) AS `v` FROM `orm_posts` INNER JOIN `orm_users` ON (`orm_posts`.`user_id` = `orm_users`.`id`) GROUP BY `orm_users`.`is_staff` ORDER BY `orm_users`.`is_staff` ASC
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE `orm_posts`.`user_id` IN (SELECT U0.`id` FROM `orm_users` U0 WHERE U0.`is_active`)
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE NOT (`orm_posts`.`user_id` IN (SELECT U0.`id` FROM `orm_users` U0))
-- Django ordering: nulls_last / nulls_first, F().desc()
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`published_at` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 23 ORDER BY `orm_posts`.`published_at` IS NULL, `orm_posts`.`published_at` ASC, `orm_posts`.`id` ASC
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`rating` FROM `orm_posts` WHERE `orm_posts`.`user_id` IN (23, 24, 25) ORDER BY `orm_posts`.`rating` IS NOT NULL, `orm_posts`.`rating` DESC, `orm_posts`.`id` DESC
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`rating`, `orm_posts`.`views` FROM `orm_posts` ORDER BY `orm_posts`.`rating` IS NULL, `orm_posts`.`rating` DESC, `orm_posts`.`views` DESC, `orm_posts`.`id` ASC LIMIT 20
-- Django admin changelist: count, search over several columns, page 3, list_filter
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts`
-- ordered
SELECT COUNT(*) AS `__count` FROM `orm_posts` WHERE (`orm_posts`.`title` LIKE '%pro%' OR `orm_posts`.`slug` LIKE '%pro%' OR `orm_posts`.`body` LIKE '%pro%')
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title`, `orm_posts`.`status`, `orm_posts`.`created_at` FROM `orm_posts` WHERE (`orm_posts`.`title` LIKE '%pro%' OR `orm_posts`.`slug` LIKE '%pro%') ORDER BY `orm_posts`.`created_at` DESC, `orm_posts`.`id` DESC LIMIT 100 OFFSET 200
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title`, `orm_posts`.`status` FROM `orm_posts` WHERE `orm_posts`.`status` = 'archived' ORDER BY `orm_posts`.`id` DESC LIMIT 100
-- ordered
SELECT DISTINCT `orm_posts`.`status` FROM `orm_posts` ORDER BY `orm_posts`.`status` ASC
-- Rails ActiveRecord: find, exists?, first/last, find_each batches, group.count, pluck, where ranges
-- ordered
SELECT `orm_posts`.* FROM `orm_posts` WHERE `orm_posts`.`id` = 2000 LIMIT 1
-- ordered
SELECT 1 AS one FROM `orm_posts` WHERE `orm_posts`.`user_id` = 5 LIMIT 1
-- ordered
SELECT 1 AS one FROM `orm_posts` WHERE `orm_posts`.`title` = 'nothing here' LIMIT 1
-- ordered
SELECT `orm_posts`.* FROM `orm_posts` ORDER BY `orm_posts`.`id` ASC LIMIT 1
-- ordered
SELECT `orm_posts`.* FROM `orm_posts` WHERE `orm_posts`.`deleted_at` IS NULL ORDER BY `orm_posts`.`id` DESC LIMIT 1
-- ordered
SELECT `orm_posts`.* FROM `orm_posts` ORDER BY `orm_posts`.`id` ASC LIMIT 1000
-- ordered
SELECT `orm_posts`.* FROM `orm_posts` WHERE `orm_posts`.`id` > 20000 ORDER BY `orm_posts`.`id` ASC LIMIT 1000
-- ordered
SELECT `orm_posts`.`id` FROM `orm_posts` WHERE `orm_posts`.`id` > 50000 ORDER BY `orm_posts`.`id` ASC LIMIT 1000
-- unordered
SELECT COUNT(*) AS `count_all`, `orm_posts`.`status` AS `orm_posts_status` FROM `orm_posts` GROUP BY `orm_posts`.`status`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `orm_posts`.`deleted_at` IS NULL
-- ordered
SELECT COUNT(DISTINCT `orm_posts`.`user_id`) FROM `orm_posts`
-- ordered
SELECT SUM(`orm_posts`.`views`) FROM `orm_posts` WHERE `orm_posts`.`status` = 'published'
-- ordered
SELECT MAX(`orm_posts`.`updated_at`) FROM `orm_posts`
-- ordered
SELECT AVG(`orm_posts`.`views`) FROM `orm_posts` WHERE `orm_posts`.`user_id` = 3
-- unordered
SELECT `orm_posts`.`id` FROM `orm_posts` WHERE `orm_posts`.`status` = 'published' AND `orm_posts`.`views` > 990
-- unordered
SELECT DISTINCT `orm_posts`.`user_id` FROM `orm_posts` WHERE `orm_posts`.`rating` > 4.9
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title` FROM `orm_posts` WHERE `orm_posts`.`created_at` BETWEEN '2010-01-01 00:00:00' AND '2010-01-31 23:59:59.999999' ORDER BY `orm_posts`.`id` ASC
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`views` FROM `orm_posts` WHERE `orm_posts`.`views` >= 100 AND `orm_posts`.`views` < 110 ORDER BY `orm_posts`.`views` DESC, `orm_posts`.`id` ASC LIMIT 50
-- ordered
SELECT `orm_users`.* FROM `orm_users` WHERE `orm_users`.`id` IN (1, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 361, 362, 363, 364, 365, 366, 367, 368, 369, 370, 371, 398, 399, 400, 401, 402, 403, 404, 405, 406, 407, 408, 435, 436, 437, 438, 439, 440, 441, 442, 443, 444, 445, 472, 473, 474, 475, 476, 477, 478, 479, 480, 481, 482, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518, 519, 546, 547, 548, 549, 550, 551, 552, 553, 554, 555, 556, 583, 584, 585, 586, 587, 588, 589, 590, 591, 592, 593, 620, 621, 622, 623, 624, 625, 626, 627, 628, 629, 630, 657, 658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 694, 695, 696, 697, 698, 699, 700, 701, 702, 703, 704, 731, 732, 733, 734, 735, 736, 737, 738, 739, 740, 741, 768, 769, 770, 771, 772, 773, 774, 775, 776, 777, 778, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 842, 843, 844, 845, 846, 847, 848, 849, 850, 851, 852, 879, 880, 881, 882, 883, 884, 885, 886, 887, 888, 889, 916, 917, 918, 919, 920, 921, 922, 923, 924, 925, 926, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999, 1000) ORDER BY `orm_users`.`id`
-- ordered
SELECT `orm_posts`.* FROM `orm_posts` WHERE `orm_posts`.`title` LIKE '%100\\%%' ESCAPE '\\' ORDER BY `orm_posts`.`id` LIMIT 10
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `orm_posts`.`title` NOT LIKE '%\\_%' ESCAPE '\\'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `orm_posts`.`status` IN ('published', 'archived') AND `orm_posts`.`published_at` IS NOT NULL
-- Keyset pagination (row constructors: Rails' and jOOQ's seek, django-cursor-pagination, GraphQL cursors)
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`created_at` FROM `orm_posts` WHERE (`orm_posts`.`created_at`, `orm_posts`.`id`) > ('2010-06-01 12:00:00', 5000) ORDER BY `orm_posts`.`created_at` ASC, `orm_posts`.`id` ASC LIMIT 20
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`created_at` FROM `orm_posts` WHERE (`orm_posts`.`created_at`, `orm_posts`.`id`) < ('2010-06-01 12:00:00', 5000) ORDER BY `orm_posts`.`created_at` DESC, `orm_posts`.`id` DESC LIMIT 20
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`user_id` FROM `orm_posts` WHERE (`orm_posts`.`user_id`, `orm_posts`.`id`) >= (500, 30000) ORDER BY `orm_posts`.`user_id`, `orm_posts`.`id` LIMIT 25
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`views` FROM `orm_posts` WHERE `orm_posts`.`views` < 300 OR (`orm_posts`.`views` = 300 AND `orm_posts`.`id` > 1000) ORDER BY `orm_posts`.`views` DESC, `orm_posts`.`id` ASC LIMIT 20
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`rating` FROM `orm_posts` WHERE (`orm_posts`.`rating`, `orm_posts`.`id`) > (4.5, 100) ORDER BY `orm_posts`.`rating`, `orm_posts`.`id` LIMIT 20
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`orm_posts`.`user_id`, `orm_posts`.`status`) IN ((1, 'draft'), (2, 'published'), (3, 'archived'), (17, 'draft'))
-- Row constructors with ENUM, DECIMAL, text under both collations, NULLs, TIMESTAMP, JSON
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`status`, `id`) > ('draft', 29000)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`status`, `id`) = (2, 100)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`status`, `views`) IN (('published', 5), ('archived', 10), (1, 3))
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`rating`, `id`) > ('4.5', 100)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`title`, `id`) > (5, 1)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`updated_at`, `id`) > ('2016-06-01 00:00:00', 0)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`created_at`, `id`) >= ('2010-06-01 12:00:00.5', 5000)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`deleted_at`, `id`) > ('2010-01-01', 1)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`uuid`, `id`) < ('8', 100000)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`title`, `slug`) = ('GADGET 1', 'WIDGET-1')
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE NOT ((`user_id`, `id`) <= (600, 15000))
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`user_id`, `id`) != (5, 10000)
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE (`first_name`, `id`) > ('ann', 500)
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE (`first_name`, `last_name`) IN (('ANN', 'smith'), ('Zoë', 'NG'), ('emile', 'MÜLLER'))
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE (`is_active`, `is_staff`) = (TRUE, FALSE)
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE (`last_login`, `id`) > (NULL, 1) OR (`last_login`, `id`) <=> (NULL, 4)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (JSON_VALUE(`meta`, '$.size'), `id`) > (2, 100)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE (`views` + 0.5, `id`) > (500, 1)
-- Hibernate 6 (MariaDB dialect): aliases p1_0, limit ?,?, escape, casts, extract, count(x)
-- ordered
select p1_0.id,p1_0.title,p1_0.user_id from orm_posts p1_0 where p1_0.user_id=17 order by p1_0.id limit 40,20
-- ordered
select count(p1_0.id) from orm_posts p1_0 where p1_0.status='published'
-- ordered
select p1_0.id,p1_0.title from orm_posts p1_0 where lower(p1_0.title) like lower('%widget 1%') escape '\\' order by p1_0.id desc limit 10
-- ordered
select p1_0.id,p1_0.slug from orm_posts p1_0 where p1_0.slug like 'gizmo!_%' escape '!' order by p1_0.id limit 10
-- ordered
select extract(year from p1_0.created_at),count(p1_0.id) from orm_posts p1_0 group by extract(year from p1_0.created_at) order by extract(year from p1_0.created_at)
-- ordered
select p1_0.user_id,cast(sum(p1_0.views) as char),cast(avg(p1_0.rating) as decimal(10,3)) from orm_posts p1_0 where p1_0.user_id<20 group by p1_0.user_id order by p1_0.user_id
-- ordered
select u1_0.id,u1_0.username from orm_users u1_0 where exists(select 1 from orm_posts p1_0 where p1_0.user_id=u1_0.id and p1_0.views>995) order by u1_0.id
-- ordered
select u1_0.id,u1_0.email from orm_users u1_0 where u1_0.id in (select p1_0.user_id from orm_posts p1_0 where p1_0.rating=5.00) order by u1_0.id
-- ordered
select p1_0.id,p1_0.title,u1_0.id,u1_0.username from orm_posts p1_0 join orm_users u1_0 on u1_0.id=p1_0.user_id where p1_0.id between 1000 and 1400 order by p1_0.id
-- ordered
select p1_0.id,p1_0.title,u1_0.username from orm_posts p1_0 left join orm_users u1_0 on u1_0.id=p1_0.user_id where p1_0.views>990 order by p1_0.id
-- ordered
select count(distinct p1_0.user_id),max(p1_0.rating),min(p1_0.published_at) from orm_posts p1_0 where p1_0.deleted_at is null
-- ordered
select p1_0.status,count(*) from orm_posts p1_0 group by p1_0.status having count(*)>100 order by count(*) desc,p1_0.status
-- SQLAlchemy ORM: anon_1 aliases, query.count() over a subquery, selectinload's IN
-- ordered
SELECT orm_posts.id AS orm_posts_id, orm_posts.title AS orm_posts_title, orm_posts.user_id AS orm_posts_user_id FROM orm_posts WHERE orm_posts.user_id IN (1, 2, 3, 4, 5, 6, 7, 8) ORDER BY orm_posts.id
-- ordered
SELECT count(*) AS count_1 FROM (SELECT orm_posts.id AS orm_posts_id, orm_posts.title AS orm_posts_title FROM orm_posts WHERE orm_posts.status = 'draft') AS anon_1
-- ordered
SELECT count(*) AS count_1 FROM (SELECT orm_posts.id, orm_posts.title FROM orm_posts WHERE orm_posts.status = 'draft') AS anon_1
-- ordered
SELECT orm_users.id AS orm_users_id, orm_users.username AS orm_users_username FROM orm_users WHERE orm_users.username = BINARY 'User5' OR orm_users.username = 'USER6' ORDER BY orm_users.id
-- ordered
SELECT orm_posts.user_id, count(orm_posts.id) AS count_1, max(orm_posts.created_at) AS max_1 FROM orm_posts WHERE orm_posts.created_at >= '2016-01-01' GROUP BY orm_posts.user_id ORDER BY count_1 DESC, orm_posts.user_id LIMIT 15
-- ordered
SELECT date_format(orm_posts.created_at, '%Y-%m') AS anon_1, count(*) AS count_1 FROM orm_posts GROUP BY date_format(orm_posts.created_at, '%Y-%m') ORDER BY anon_1 DESC LIMIT 24
-- ordered
SELECT orm_posts.id, orm_posts.title FROM orm_posts WHERE orm_posts.title LIKE concat('%%', 'Pro', '%%') ORDER BY orm_posts.id LIMIT 5
-- ordered
SELECT orm_posts.id FROM orm_posts WHERE (orm_posts.title LIKE concat('Thing', '%')) ORDER BY orm_posts.id LIMIT 5 OFFSET 5
-- ordered
SELECT CAST(orm_posts.rating AS CHAR) AS anon_1, count(*) AS count_1 FROM orm_posts GROUP BY CAST(orm_posts.rating AS CHAR) ORDER BY anon_1
-- Laravel Eloquent: paginate, exists(), whereHas, withCount, soft deletes, whereDate/whereMonth/whereYear/whereTime, chunkById
-- ordered
select count(*) as aggregate from `orm_posts` where `orm_posts`.`deleted_at` is null
-- ordered
select * from `orm_posts` where `orm_posts`.`deleted_at` is null order by `created_at` desc, `id` desc limit 15 offset 30
-- ordered
select exists(select * from `orm_posts` where `user_id` = 5 and `orm_posts`.`deleted_at` is null) as `exists`
-- ordered
select exists(select * from `orm_posts` where `slug` = 'no-such' and `orm_posts`.`deleted_at` is null) as `exists`
-- ordered
select * from `orm_users` where exists (select * from `orm_posts` where `orm_users`.`id` = `orm_posts`.`user_id` and `status` = 'archived' and `orm_posts`.`deleted_at` is null and `views` > 990) order by `id` asc
-- ordered
select `orm_users`.*, (select count(*) from `orm_posts` where `orm_users`.`id` = `orm_posts`.`user_id` and `orm_posts`.`deleted_at` is null) as `posts_count` from `orm_users` where `id` < 50 order by `id` asc
-- ordered
select count(*) as aggregate from `orm_posts` where date(`created_at`) = '2010-05-05'
-- ordered
select count(*) as aggregate from `orm_posts` where month(`created_at`) = '05' and year(`created_at`) = 2011
-- ordered
select count(*) as aggregate from `orm_posts` where day(`created_at`) = '09'
-- ordered
select count(*) as aggregate from `orm_posts` where time(`created_at`) > '20:00:00'
-- ordered
select * from `orm_posts` where `id` > 40000 order by `id` asc limit 500
-- ordered
select * from `orm_posts` where `user_id` in (1, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 176, 177, 178, 179, 180, 181, 182, 183, 184, 185, 186, 213, 214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 250, 251, 252, 253, 254, 255, 256, 257, 258, 259, 260, 287, 288, 289, 290, 291, 292, 293, 294, 295, 296, 297, 324, 325, 326, 327, 328, 329, 330, 331, 332, 333, 334, 361, 362, 363, 364, 365, 366, 367, 368, 369, 370, 371, 398, 399, 400, 401, 402, 403, 404, 405, 406, 407, 408, 435, 436, 437, 438, 439, 440, 441, 442, 443, 444, 445, 472, 473, 474, 475, 476, 477, 478, 479, 480, 481, 482, 509, 510, 511, 512, 513, 514, 515, 516, 517, 518, 519, 546, 547, 548, 549, 550, 551, 552, 553, 554, 555, 556, 583, 584, 585, 586, 587, 588, 589, 590, 591, 592, 593, 620, 621, 622, 623, 624, 625, 626, 627, 628, 629, 630, 657, 658, 659, 660, 661, 662, 663, 664, 665, 666, 667, 694, 695, 696, 697, 698, 699, 700, 701, 702, 703, 704, 731, 732, 733, 734, 735, 736, 737, 738, 739, 740, 741, 768, 769, 770, 771, 772, 773, 774, 775, 776, 777, 778, 805, 806, 807, 808, 809, 810, 811, 812, 813, 814, 815, 842, 843, 844, 845, 846, 847, 848, 849, 850, 851, 852, 879, 880, 881, 882, 883, 884, 885, 886, 887, 888, 889, 916, 917, 918, 919, 920, 921, 922, 923, 924, 925, 926, 953, 954, 955, 956, 957, 958, 959, 960, 961, 962, 963, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999, 1000) and `orm_posts`.`deleted_at` is null order by `id` asc limit 50
-- unordered
select `status`, count(*) as `total` from `orm_posts` group by `status` order by `total` desc
-- ordered
select sum(`views`) as aggregate from `orm_posts` where `status` = 'draft'
-- ordered
select max(`rating`) as aggregate from `orm_posts` where `user_id` = 9
-- ordered
select * from `orm_posts` where `title` like '%Widget%' and `orm_posts`.`deleted_at` is null order by `id` desc limit 10
-- ordered
select * from `orm_posts` where `published_at` between '2012-01-01 00:00:00' and '2012-12-31 23:59:59' order by `published_at` desc, `id` desc limit 15
-- GORM: First, Find with soft delete, Preload, Count, Pluck, Distinct, Scopes
-- ordered
SELECT * FROM `orm_posts` WHERE `orm_posts`.`deleted_at` IS NULL ORDER BY `orm_posts`.`id` LIMIT 1
-- ordered
SELECT * FROM `orm_posts` WHERE id = 3000 AND `orm_posts`.`deleted_at` IS NULL ORDER BY `orm_posts`.`id` LIMIT 1
-- ordered
SELECT * FROM `orm_users` WHERE `orm_users`.`id` IN (1,2,3,4,5,6,7,8,9,10,11,12)
-- unordered
SELECT * FROM `orm_posts` WHERE `orm_posts`.`user_id` IN (11,12,13) AND `orm_posts`.`deleted_at` IS NULL
-- ordered
SELECT count(*) FROM `orm_posts` WHERE status = 'draft' AND `orm_posts`.`deleted_at` IS NULL
-- unordered
SELECT `title` FROM `orm_posts` WHERE user_id = 21 AND `orm_posts`.`deleted_at` IS NULL
-- unordered
SELECT DISTINCT `status` FROM `orm_posts` WHERE `orm_posts`.`deleted_at` IS NULL
-- ordered
SELECT * FROM `orm_posts` WHERE `orm_posts`.`deleted_at` IS NULL ORDER BY created_at desc,id desc LIMIT 10 OFFSET 10
-- ordered
SELECT `orm_posts`.`id`,`orm_posts`.`title`,`User`.`id` AS `User__id`,`User`.`username` AS `User__username` FROM `orm_posts` LEFT JOIN `orm_users` `User` ON `orm_posts`.`user_id` = `User`.`id` WHERE `orm_posts`.`id` < 800 AND `orm_posts`.`deleted_at` IS NULL ORDER BY `orm_posts`.`id`
-- ordered
SELECT * FROM `orm_posts` LIMIT 1
-- Sequelize: AS `Post` model aliases, LIMIT offset, count, findAndCountAll with include
-- ordered
SELECT `id`, `title`, `status`, `created_at` AS `createdAt` FROM `orm_posts` AS `Post` WHERE `Post`.`user_id` = 77 ORDER BY `Post`.`id` ASC LIMIT 0, 10
-- ordered
SELECT count(*) AS `count` FROM `orm_posts` AS `Post` WHERE `Post`.`status` = 'published'
-- ordered
SELECT count(DISTINCT(`Post`.`id`)) AS `count` FROM `orm_posts` AS `Post` INNER JOIN `orm_users` AS `User` ON `Post`.`user_id` = `User`.`id` AND `User`.`is_active` = true
-- ordered
SELECT `Post`.`id`, `Post`.`title`, `User`.`id` AS `User.id`, `User`.`username` AS `User.username` FROM `orm_posts` AS `Post` LEFT OUTER JOIN `orm_users` AS `User` ON `Post`.`user_id` = `User`.`id` WHERE `Post`.`views` > 995 ORDER BY `Post`.`id` LIMIT 20
-- ordered
SELECT `status`, COUNT(`id`) AS `n` FROM `orm_posts` AS `Post` GROUP BY `status` ORDER BY `status`
-- ordered
SELECT 1+1 AS result
-- Prisma: database-qualified column names, LIMIT/OFFSET, count over a subquery, cursor
-- ordered
SELECT `ontime`.`orm_posts`.`id`, `ontime`.`orm_posts`.`title`, `ontime`.`orm_posts`.`status` FROM `ontime`.`orm_posts` WHERE `ontime`.`orm_posts`.`status` = 'draft' ORDER BY `ontime`.`orm_posts`.`id` ASC LIMIT 10 OFFSET 20
-- ordered
SELECT COUNT(*) AS `_count._all` FROM (SELECT `ontime`.`orm_posts`.`id` FROM `ontime`.`orm_posts` WHERE `ontime`.`orm_posts`.`user_id` = 33) AS `sub`
-- ordered
SELECT `ontime`.`orm_posts`.`id`, `ontime`.`orm_posts`.`created_at` FROM `ontime`.`orm_posts` WHERE `ontime`.`orm_posts`.`id` >= (SELECT `ontime`.`orm_posts`.`id` FROM `ontime`.`orm_posts` WHERE (`ontime`.`orm_posts`.`id`) = (1500)) ORDER BY `ontime`.`orm_posts`.`id` ASC LIMIT 10
-- ordered
SELECT `ontime`.`orm_posts`.`user_id`, COUNT(`ontime`.`orm_posts`.`id`) AS `_count$id`, AVG(`ontime`.`orm_posts`.`rating`) AS `_avg$rating` FROM `ontime`.`orm_posts` WHERE 1=1 GROUP BY `ontime`.`orm_posts`.`user_id` ORDER BY `ontime`.`orm_posts`.`user_id` ASC LIMIT 10
-- ordered
SELECT `ontime`.`orm_users`.`id`, `ontime`.`orm_users`.`email` FROM `ontime`.`orm_users` WHERE (`ontime`.`orm_users`.`email` LIKE '%example.org%' AND 1=1) ORDER BY `ontime`.`orm_users`.`id` ASC LIMIT 20
-- ordered
SELECT `ontime`.`orm_posts`.`id` FROM `ontime`.`orm_posts` WHERE (`ontime`.`orm_posts`.`id`,`ontime`.`orm_posts`.`user_id`) IN ((2,1),(4,125),(6,187)) ORDER BY `ontime`.`orm_posts`.`id`
-- Admin panels: Adminer, phpMyAdmin browse/search, table browsers
-- unordered
SELECT * FROM `orm_users` LIMIT 50
-- unordered
SELECT * FROM `orm_posts` LIMIT 0, 25
-- ordered
SELECT COUNT(*) FROM `ontime`.`orm_posts`
-- ordered
SELECT * FROM `ontime`.`orm_posts` WHERE `title` LIKE '%gizmo%' ORDER BY `orm_posts`.`id` ASC LIMIT 0, 25
-- ordered
SELECT * FROM `orm_posts` WHERE CONCAT_WS(' ', `title`, `slug`, `status`) LIKE '%thing.v2%' ORDER BY `id` LIMIT 25
-- unordered
SELECT `status`, COUNT(*) AS `Count` FROM `orm_posts` GROUP BY `status` ORDER BY `Count` DESC
-- More web-application shapes: Django's [n:] slice (LIMIT 2^64-1 OFFSET n), deep pages,
-- LIMIT inside IN (1235 on MariaDB), Rails' in_order_of (FIELD), ENUM comparisons and
-- keysets, GROUP_CONCAT lists, strings for numbers and dates (ISO 'T', Sequelize's
-- '+00:00' suffix), DATETIME(6) arithmetic, PAD SPACE and _ci equality, ESCAPE variants
-- ordered
SELECT `orm_posts`.`id`, `orm_posts`.`title` FROM `orm_posts` ORDER BY `orm_posts`.`id` ASC LIMIT 18446744073709551615 OFFSET 29050
-- ordered
SELECT `orm_posts`.`id` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 5 ORDER BY `orm_posts`.`id` LIMIT 18446744073709551615 OFFSET 3
-- ordered
SELECT `id`, `title` FROM `orm_posts` ORDER BY `id` LIMIT 20 OFFSET 28000
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `id` IN (SELECT U0.`id` FROM `orm_posts` U0 WHERE U0.`user_id` = 5 LIMIT 5)
-- ordered
SELECT `id`, `status` FROM `orm_posts` WHERE `user_id` = 9 ORDER BY FIELD(`status`, 'published', 'draft', 'archived'), `id`
-- ordered
SELECT `id` FROM `orm_posts` WHERE `id` IN (5, 3, 1, 8) ORDER BY FIELD(`id`, 5, 3, 1, 8)
-- ordered
SELECT `id`, `status` FROM `orm_posts` WHERE `user_id` = 9 ORDER BY CASE `status` WHEN 'published' THEN 0 ELSE 1 END, `id`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `status` > 'draft'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `status` = 1
-- ordered
SELECT `id`, `status` FROM `orm_posts` WHERE (`status`, `id`) > ('draft', 29000) ORDER BY `status`, `id` LIMIT 10
-- ordered
SELECT `user_id`, GROUP_CONCAT(`id` ORDER BY `id` SEPARATOR ', ') AS `ids` FROM `orm_posts` WHERE `user_id` < 30 GROUP BY `user_id` ORDER BY `user_id`
-- ordered
SELECT `user_id`, GROUP_CONCAT(`title` ORDER BY `id`) AS `t` FROM `orm_posts` GROUP BY `user_id` ORDER BY `user_id` LIMIT 3
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `views` BETWEEN '100' AND '200'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` >= '2010-06-01T00:00:00'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` >= '2010-06-01 00:00:00.000 +00:00'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` >= '2010-06-01 00:00:00.000'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` > '2010-06-01'
-- unordered
SELECT `id`, `created_at` FROM `orm_posts` WHERE `created_at` = (SELECT `created_at` FROM `orm_posts` WHERE `id` = 777)
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `is_active` IS TRUE AND NOT `is_staff`
-- ordered
SELECT `id` FROM `orm_posts` WHERE `id` = 2000.0
-- ordered
SELECT `id` FROM `orm_posts` WHERE `id` = '2000.5'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `body` IS NULL OR `body` = ''
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE CHAR_LENGTH(`body`) > 100
-- ordered
SELECT `id`, DATE_FORMAT(`created_at`, '%Y-%m-%dT%H:%i:%s.%fZ') AS `iso`, UNIX_TIMESTAMP(`created_at`) AS `u`, `created_at` + INTERVAL 1 DAY AS `n`, DATE_ADD(`created_at`, INTERVAL 30 MINUTE) AS `m`, TIMESTAMPDIFF(DAY, `created_at`, `published_at`) AS `td`, DATEDIFF(`published_at`, `created_at`) AS `dd` FROM `orm_posts` WHERE `id` < 15 ORDER BY `id`
-- ordered
SELECT MAX(`created_at`), MIN(`updated_at`), AVG(`views`), SUM(`rating`), AVG(`rating`) FROM `orm_posts` WHERE `user_id` < 100
-- ordered
SELECT `user_id`, MAX(`created_at`) AS `last`, MIN(`published_at`) AS `first` FROM `orm_posts` WHERE `user_id` < 10 GROUP BY `user_id` ORDER BY `user_id`
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `title` = 'gadget 1 ' ORDER BY `id` LIMIT 3
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `email` LIKE '%@example.org'
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` LIKE 'ann'
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` LIKE 'ann%'
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` = 'ann'
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` LIKE 'emile'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` LIKE 'x' ESCAPE ''
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` LIKE '100|%%' ESCAPE '|'
-- ordered
SELECT COUNT(*), COUNT(`published_at`), COUNT(DISTINCT `status`) FROM `orm_posts` WHERE `deleted_at` IS NULL
-- ordered
SELECT `orm_users`.`first_name`, COUNT(*) FROM `orm_users` GROUP BY `orm_users`.`first_name` ORDER BY COUNT(*) DESC, `orm_users`.`first_name` DESC
-- ordered
SELECT DISTINCT `first_name` FROM `orm_users` ORDER BY `first_name` DESC
-- ordered
SELECT `first_name`, MIN(`id`) FROM `orm_users` GROUP BY `first_name` ORDER BY `first_name`
-- ordered
SELECT `id`, `first_name` FROM `orm_users` ORDER BY `first_name`, `id` LIMIT 15
-- ordered
SELECT `id`, `rating` FROM `orm_posts` ORDER BY -`rating` DESC, `id` LIMIT 10
-- ordered
SELECT `id`, `rating` FROM `orm_posts` WHERE `user_id` = 12 ORDER BY ISNULL(`rating`), `rating`, `id`
-- ordered
SELECT `id`, `views` * 1.0 / NULLIF(`user_id`, 0) AS `r` FROM `orm_posts` WHERE `id` < 8 ORDER BY `id`
-- ordered
SELECT ROUND(AVG(`rating`), 2) AS `r`, `status` FROM `orm_posts` GROUP BY `status` ORDER BY `status`
-- ordered
SELECT `status`, SUM(CASE WHEN `rating` IS NULL THEN 1 ELSE 0 END) AS `unrated` FROM `orm_posts` GROUP BY `status` ORDER BY `status`
-- ordered
SELECT YEAR(`created_at`) AS `y`, MONTH(`created_at`) AS `m`, COUNT(*) AS `c`, SUM(`views`) AS `v` FROM `orm_posts` WHERE `created_at` >= '2015-06-01' GROUP BY YEAR(`created_at`), MONTH(`created_at`) ORDER BY `y` DESC, `m` DESC
-- ordered
SELECT DATE(`created_at`) AS `d`, COUNT(*) FROM `orm_posts` WHERE `created_at` BETWEEN '2016-12-01' AND '2016-12-31 23:59:59' GROUP BY DATE(`created_at`) ORDER BY `d` DESC
-- unordered
SELECT `id`, `uuid` FROM `orm_posts` WHERE `uuid` LIKE 'c4ca%'
-- ordered
SELECT `id`, HEX(`uuid`), UNHEX(REPLACE(`uuid`, '-', '')) = UNHEX(REPLACE(`uuid`, '-', '')) FROM `orm_posts` WHERE `id` < 4 ORDER BY `id`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `slug` IN ('gizmo_1', 'widget-2', 'pro-3', 'GIZMO_1')
-- ordered
SELECT `id`, `slug` FROM `orm_posts` WHERE `slug` = 'GIZMO_1'
-- ordered
SELECT `id`, `last_login` FROM `orm_users` WHERE `last_login` > '2010-01-01 00:00:00.5' ORDER BY `last_login`, `id` LIMIT 5
-- ordered
SELECT `id`, CAST(`last_login` AS DATE), TIME(`last_login`), CAST(`date_joined` AS DATETIME), CAST(`date_joined` AS DATETIME(3)) FROM `orm_users` WHERE `id` < 12 ORDER BY `id`
-- Text equal under utf8mb4_unicode_ci: 'Straße 🎉 n' and 'STRASSE 🎊 n' (ß = ss, every emoji
-- weighs the same): groups, DISTINCT, MIN/MAX and ROLLUP show the spelling MariaDB met first
-- ordered
SELECT `title`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY `title` ORDER BY `title`
-- ordered
SELECT `title`, COUNT(*) AS `c` FROM `orm_posts` WHERE `title` LIKE 'str%' GROUP BY `title` ORDER BY `c` DESC, `title`
-- ordered
SELECT DISTINCT `title` FROM `orm_posts` WHERE `title` LIKE '%🎉%' ORDER BY `title`
-- ordered
SELECT COUNT(DISTINCT `title`) FROM `orm_posts`
-- ordered
SELECT MIN(`title`), MAX(`title`) FROM `orm_posts` WHERE `title` LIKE 'S%'
-- ordered
SELECT `user_id`, MIN(`title`) AS `t` FROM `orm_posts` WHERE `user_id` < 40 GROUP BY `user_id` ORDER BY `user_id`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` = 'strasse 🎈 1'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` = 'Straße 🎉 1'
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `title` LIKE 'STRASSE%' ORDER BY `title`, `id` LIMIT 10
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `title` LIKE 'STRA_E%' ORDER BY `id` LIMIT 10
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `title` LIKE '%_🎊%' ORDER BY `id` LIMIT 5
-- ordered
SELECT `id`, UPPER(`title`), LOWER(`title`), CHAR_LENGTH(`title`), LENGTH(`title`), REVERSE(`title`), LEFT(`title`, 7) FROM `orm_posts` WHERE `title` LIKE 'str%' ORDER BY `id` LIMIT 6
-- ordered
SELECT `title`, `status`, COUNT(*) FROM `orm_posts` WHERE `title` LIKE 'str%' GROUP BY `title`, `status` ORDER BY `title`, `status`
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `title` IN ('STRASSE 🎊 1', 'nothing') ORDER BY `id` LIMIT 5
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `title` > 'Straße 🎉 2' AND `title` < 'T' ORDER BY `title`, `id` LIMIT 5
-- ordered
SELECT `title` COLLATE utf8mb4_bin AS `t`, COUNT(*) FROM `orm_posts` WHERE `title` LIKE 'str%' GROUP BY 1 ORDER BY 1
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE BINARY `title` = 'Straße 🎉 1' ORDER BY `id` LIMIT 3
-- ordered
SELECT GROUP_CONCAT(DISTINCT `title` ORDER BY `title` SEPARATOR '|') FROM `orm_posts` WHERE `title` LIKE 'str%'
-- unordered
SELECT `title`, COUNT(*) FROM `orm_posts` WHERE `title` LIKE 'str%' GROUP BY `title` WITH ROLLUP
-- JSON as Laravel's MariaDB grammar, Prisma and Rails store it: JSON_EXTRACT/JSON_UNQUOTE
-- paths in WHERE and GROUP BY, JSON_CONTAINS, JSON_VALUE, an object per row, Prisma's
-- relation loading through JSON_ARRAYAGG(… ORDER BY …) (without ORDER BY the members'
-- order is MariaDB's choice: docs/sql.md)
-- ordered
SELECT `id`, `meta` FROM `orm_posts` WHERE `id` < 12 ORDER BY `id`
-- ordered
SELECT `id`, JSON_UNQUOTE(JSON_EXTRACT(`meta`, '$.color')) AS `c`, JSON_EXTRACT(`meta`, '$.size') AS `s`, JSON_EXTRACT(`meta`, '$.tags') AS `t`, JSON_EXTRACT(`meta`, '$.name') AS `n`, JSON_UNQUOTE(JSON_EXTRACT(`meta`, '$.name')) AS `un` FROM `orm_posts` WHERE `id` < 12 ORDER BY `id`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_UNQUOTE(JSON_EXTRACT(`meta`, '$.color')) = 'red'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_EXTRACT(`meta`, '$.color') = 'blue'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_CONTAINS(`meta`, '"a"', '$.tags')
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_CONTAINS(`meta`, '3', '$.size')
-- ordered
SELECT JSON_UNQUOTE(JSON_EXTRACT(`meta`, '$.color')) AS `c`, COUNT(*), SUM(JSON_EXTRACT(`meta`, '$.size')) AS `s` FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT JSON_EXTRACT(`meta`, '$.size') AS `s`, COUNT(*) FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_EXTRACT(`meta`, '$.size') > 2
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_EXTRACT(`meta`, '$.price') > 100
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_EXTRACT(`meta`, '$.tags[1]') = true
-- ordered
SELECT `id`, JSON_LENGTH(`meta`), JSON_KEYS(`meta`), JSON_TYPE(JSON_EXTRACT(`meta`, '$.size')), JSON_VALID(`meta`) FROM `orm_posts` WHERE `id` < 9 ORDER BY `id`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `meta` IS NULL
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_EXTRACT(`meta`, '$.color') IS NULL
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE JSON_VALUE(`meta`, '$.color') = 'red'
-- ordered
SELECT `id`, JSON_VALUE(`meta`, '$.price') AS `p` FROM `orm_posts` WHERE `id` < 9 ORDER BY `id`
-- ordered
SELECT MAX(JSON_EXTRACT(`meta`, '$.price')), MIN(JSON_VALUE(`meta`, '$.price')) FROM `orm_posts`
-- ordered
SELECT `id` FROM `orm_posts` WHERE JSON_UNQUOTE(JSON_EXTRACT(`meta`, '$.name')) = 'O"Neil' ORDER BY `id` LIMIT 3
-- ordered
SELECT `id`, JSON_OBJECT('id', `id`, 'title', `title`, 'rating', `rating`, 'at', `created_at`) AS `j` FROM `orm_posts` WHERE `id` < 8 ORDER BY `id`
-- ordered
SELECT JSON_SEARCH(`meta`, 'one', 'red') AS `p`, COUNT(*) FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT `user_id`, JSON_ARRAYAGG(`id` ORDER BY `id`) AS `ids` FROM `orm_posts` WHERE `user_id` < 5 GROUP BY `user_id` ORDER BY `user_id`
-- ordered
SELECT `user_id`, JSON_ARRAYAGG(JSON_OBJECT('id', `id`, 'title', `title`) ORDER BY `id` DESC) AS `posts` FROM `orm_posts` WHERE `user_id` < 4 GROUP BY `user_id` ORDER BY `user_id`
-- ordered
SELECT `u`.`id`, (SELECT COALESCE(JSON_ARRAYAGG(JSON_OBJECT('id', `p`.`id`, 'title', `p`.`title`)), '[]') FROM (SELECT `id`, `title` FROM `orm_posts` WHERE `user_id` = `u`.`id` ORDER BY `id` LIMIT 3) AS `p`) AS `posts` FROM `orm_users` AS `u` WHERE `u`.`id` < 6 ORDER BY `u`.`id`
-- NULL in IN lists, mixed-type IN, LIKE over numbers, dates and ENUMs (Django's
-- startswith/contains on non-text fields), boolean sums, column-to-column date filters
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `user_id` NOT IN (1, NULL)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `user_id` IN (1, NULL, 2)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE NOT (`user_id` IN (1, NULL))
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `id` IN (1, '2', 3.0, '4abc', 5e0)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` IN ('gadget 1', 1, 0)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `views` LIKE '1%'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` LIKE '2010-06%'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` LIKE '%.5%'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `published_at` LIKE '%12:%'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `rating` LIKE '4.5%'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `status` LIKE 'pub%'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `updated_at` LIKE '2016-02%'
-- ordered
SELECT `id`, CONCAT(`id`, '-', `created_at`, '-', `rating`, '-', `status`) AS `k` FROM `orm_posts` WHERE `id` < 10 ORDER BY `id`
-- ordered
SELECT SUM(`is_active`), AVG(`is_staff`), SUM(`is_active` AND `is_staff`) FROM `orm_users`
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `is_active` = 'true'
-- ordered
SELECT `id`, `title` FROM `orm_posts` WHERE `user_id` = 3 ORDER BY `title` COLLATE utf8mb4_bin, `id`
-- unordered
SELECT `id` FROM `orm_posts` WHERE `created_at` IN ('2010-06-01 12:00:00', '1988-01-01 02:11:59.000031') ORDER BY `id`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE DATE(`created_at`) IN ('2010-06-01', '2010-06-02', '2010-06-03')
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `rating` IN (4.5, '4.50', 0)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `rating` = '4.5abc'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `views` BETWEEN 100 AND '200'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `uuid` IN (SELECT `uuid` FROM `orm_posts` WHERE `id` < 50)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` > `published_at`
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `created_at` = DATE(`created_at`)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `deleted_at` > NOW() - INTERVAL 100 YEAR
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `published_at` BETWEEN `created_at` AND `created_at` + INTERVAL 1 DAY
-- Django's union()/intersection()/difference() and their count(), Rails' and SQLAlchemy's
-- CTEs, a recursive month series, per-group top-N with ROW_NUMBER (django-cte, Laravel's
-- eager limit), RANK, a paginator's COUNT(*) OVER () (these pass through: docs/sql.md)
-- ordered
(SELECT `orm_posts`.`id`, `orm_posts`.`title` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 5) UNION (SELECT `orm_posts`.`id`, `orm_posts`.`title` FROM `orm_posts` WHERE `orm_posts`.`user_id` = 6) ORDER BY 1 ASC LIMIT 10
-- ordered
SELECT `id` FROM `orm_posts` WHERE `user_id` = 5 UNION ALL SELECT `id` FROM `orm_posts` WHERE `user_id` = 6 ORDER BY `id`
-- ordered
SELECT COUNT(*) FROM (SELECT `id` FROM `orm_posts` WHERE `user_id` = 5 UNION SELECT `id` FROM `orm_posts` WHERE `views` > 990) `subquery`
-- ordered
(SELECT `id` FROM `orm_posts` WHERE `user_id` < 50) INTERSECT (SELECT `id` FROM `orm_posts` WHERE `views` > 900) ORDER BY 1 LIMIT 20
-- ordered
(SELECT `id` FROM `orm_posts` WHERE `user_id` < 10) EXCEPT (SELECT `id` FROM `orm_posts` WHERE `views` > 500) ORDER BY 1
-- ordered
SELECT `status`, COUNT(*) FROM `orm_posts` WHERE `user_id` < 100 GROUP BY `status` UNION ALL SELECT 'all', COUNT(*) FROM `orm_posts` WHERE `user_id` < 100 ORDER BY 1
-- ordered
WITH `recent` AS (SELECT `id`, `user_id`, `created_at` FROM `orm_posts` WHERE `created_at` >= '2016-01-01') SELECT `user_id`, COUNT(*) AS `c` FROM `recent` GROUP BY `user_id` ORDER BY `c` DESC, `user_id` LIMIT 10
-- ordered
WITH `counts` AS (SELECT `user_id`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY `user_id`) SELECT `u`.`id`, `u`.`username`, `counts`.`c` FROM `orm_users` `u` JOIN `counts` ON `counts`.`user_id` = `u`.`id` WHERE `u`.`id` < 30 ORDER BY `u`.`id`
-- ordered
WITH RECURSIVE `seq` (`n`) AS (SELECT 1 UNION ALL SELECT `n` + 1 FROM `seq` WHERE `n` < 12) SELECT `seq`.`n`, COUNT(`p`.`id`) FROM `seq` LEFT JOIN `orm_posts` `p` ON MONTH(`p`.`created_at`) = `seq`.`n` AND YEAR(`p`.`created_at`) = 2015 GROUP BY `seq`.`n` ORDER BY `seq`.`n`
-- ordered
SELECT `u`.`id`, `t`.`c` FROM `orm_users` `u` JOIN (SELECT `user_id`, COUNT(*) AS `c` FROM `orm_posts` GROUP BY `user_id`) `t` ON `t`.`user_id` = `u`.`id` WHERE `u`.`id` < 20 ORDER BY `u`.`id`
-- ordered
SELECT * FROM (SELECT `id`, `title`, ROW_NUMBER() OVER (PARTITION BY `user_id` ORDER BY `created_at` DESC, `id` DESC) AS `rn` FROM `orm_posts` WHERE `user_id` < 6) `x` WHERE `rn` <= 2 ORDER BY `id`
-- ordered
SELECT `id`, `views`, RANK() OVER (ORDER BY `views` DESC) AS `r` FROM `orm_posts` WHERE `user_id` = 7 ORDER BY `r`, `id`
-- ordered
SELECT `id`, COUNT(*) OVER () AS `full_count` FROM `orm_posts` WHERE `user_id` = 7 ORDER BY `id` LIMIT 5
-- Binary comparisons, casts and collations web apps lean on
-- ordered
SELECT `id`, `username` FROM `orm_users` WHERE BINARY `username` = 'user5'
-- ordered
SELECT `id`, `first_name` FROM `orm_users` WHERE `first_name` = 'ann' ORDER BY `id` LIMIT 10
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` = 'Ann'
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE BINARY `first_name` = 'ann'
-- ordered
SELECT `first_name`, COUNT(*) FROM `orm_users` GROUP BY `first_name` ORDER BY `first_name`, COUNT(*)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` > BINARY 'a'
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` LIKE CAST('%Gadget%' AS BINARY)
-- ordered
SELECT COUNT(*) FROM `orm_posts` WHERE `title` LIKE BINARY 'gadget%' ESCAPE '!'
-- ordered
SELECT `title` LIKE BINARY 'Gadget%' AS `x`, COUNT(*) FROM `orm_posts` GROUP BY 1 ORDER BY 1
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` = BINARY 'ann'
-- ordered
SELECT COUNT(*) FROM `orm_users` WHERE `first_name` IN (BINARY 'Emile', 'zoe')
-- ordered
SELECT CAST(`id` AS CHAR) AS `id_s`, CAST(`views` AS SIGNED) - 500 AS `d`, CAST(`rating` AS DECIMAL(5,1)) AS `r`, CAST(`created_at` AS DATE) AS `d2`, CAST(`created_at` AS CHAR) AS `ts` FROM `orm_posts` WHERE `id` < 200 ORDER BY `id`
-- ordered
SELECT `id` FROM `orm_posts` WHERE `id` = '2000'
-- ordered
SELECT `id` FROM `orm_posts` WHERE `user_id` = '17abc' ORDER BY `id` LIMIT 3
-- ordered
SELECT `id`, `status` FROM `orm_posts` WHERE `status` = 2 ORDER BY `id` LIMIT 5
-- ordered
SELECT `id`, `is_active` FROM `orm_users` WHERE `is_active` = TRUE AND `is_staff` = FALSE ORDER BY `id` LIMIT 10
-- ordered
SELECT `id`, `uuid` FROM `orm_posts` WHERE `uuid` = (SELECT `uuid` FROM `orm_posts` WHERE `id` = 4000)
