package e2e

// The built-in functions the differential suite applies to group keys and
// aggregates: the function matrix (funcmatrix_test.go) runs each in every
// context, and the random generator (querygen.go) draws from the same
// list, so what the matrix covers stays covered by random queries.

// fn is one function applied to an argument of a kind: f has one %[1]s
// for the argument.
type fn struct {
	cat  string // category, as the MariaDB manual groups them
	kind byte   // 's' string, 'n' number, 'd' date
	f    string
}

// matrixFuncs is the list. A function that takes several kinds appears
// once per kind worth checking.
var matrixFuncs = []fn{
	// String functions.
	{"string", 's', "LOWER(%[1]s)"}, {"string", 's', "UPPER(%[1]s)"}, {"string", 's', "LCASE(%[1]s)"}, {"string", 's', "UCASE(%[1]s)"},
	{"string", 's', "LENGTH(%[1]s)"}, {"string", 's', "CHAR_LENGTH(%[1]s)"}, {"string", 's', "CHARACTER_LENGTH(%[1]s)"},
	{"string", 's', "OCTET_LENGTH(%[1]s)"}, {"string", 's', "BIT_LENGTH(%[1]s)"}, {"string", 's', "ASCII(%[1]s)"}, {"string", 's', "ORD(%[1]s)"},
	{"string", 's', "HEX(%[1]s)"}, {"string", 's', "UNHEX(HEX(%[1]s))"}, {"string", 's', "REVERSE(%[1]s)"},
	{"string", 's', "TRIM(%[1]s)"}, {"string", 's', "LTRIM(CONCAT('  ', %[1]s))"}, {"string", 's', "RTRIM(CONCAT(%[1]s, '  '))"},
	{"string", 's', "TRIM(BOTH 'A' FROM %[1]s)"}, {"string", 's', "CONCAT(%[1]s, '-x')"}, {"string", 's', "CONCAT_WS('/', %[1]s, 'y')"},
	{"string", 's', "SUBSTRING(%[1]s, 2, 3)"}, {"string", 's', "SUBSTR(%[1]s, 2)"}, {"string", 's', "MID(%[1]s, 1, 2)"},
	{"string", 's', "SUBSTRING_INDEX(%[1]s, 'a', 1)"}, {"string", 's', "LEFT(%[1]s, 2)"}, {"string", 's', "RIGHT(%[1]s, 2)"},
	{"string", 's', "LPAD(%[1]s, 6, '*')"}, {"string", 's', "RPAD(%[1]s, 6, '*')"}, {"string", 's', "REPEAT(%[1]s, 2)"},
	{"string", 's', "REPLACE(%[1]s, 'A', 'a')"}, {"string", 's', "INSERT(%[1]s, 1, 1, 'Q')"}, {"string", 's', "INSTR(%[1]s, 'A')"},
	{"string", 's', "LOCATE('A', %[1]s)"}, {"string", 's', "POSITION('A' IN %[1]s)"}, {"string", 's', "ELT(1, %[1]s, 'b')"},
	{"string", 's', "FIELD(%[1]s, 'AA', 'DL')"}, {"string", 's', "FIND_IN_SET(%[1]s, 'AA,DL')"}, {"string", 's', "STRCMP(%[1]s, 'M')"},
	{"string", 's', "SOUNDEX(%[1]s)"}, {"string", 's', "QUOTE(%[1]s)"}, {"string", 's', "SPACE(LENGTH(%[1]s))"},
	{"string", 's', "MAKE_SET(3, %[1]s, 'b')"}, {"string", 's', "EXPORT_SET(5, %[1]s, 'n', ',', 4)"}, {"string", 's', "CHAR(ASCII(%[1]s))"},
	{"string", 's', "BIN(ASCII(%[1]s))"}, {"string", 's', "OCT(ASCII(%[1]s))"}, {"string", 's', "CONV(HEX(LEFT(%[1]s, 2)), 16, 10)"},
	{"string", 's', "FORMAT(LENGTH(%[1]s) * 1000.5, 1)"},
	{"string", 's', "TO_BASE64(%[1]s)"}, {"string", 's', "FROM_BASE64(TO_BASE64(%[1]s))"},
	{"string", 's', "MD5(%[1]s)"}, {"string", 's', "SHA1(%[1]s)"}, {"string", 's', "SHA2(%[1]s, 256)"}, {"string", 's', "CRC32(%[1]s)"},
	{"string", 's', "CHARSET(%[1]s)"}, {"string", 's', "COLLATION(%[1]s)"},
	// Comparison and pattern matching over strings.
	{"comparison", 's', "%[1]s = 'AA'"}, {"comparison", 's', "%[1]s < 'M'"}, {"comparison", 's', "%[1]s IN ('AA', 'DL', 'abc')"},
	{"comparison", 's', "%[1]s BETWEEN 'A' AND 'M'"}, {"comparison", 's', "%[1]s LIKE 'A%%'"}, {"comparison", 's', "%[1]s NOT LIKE '%%e%%'"},
	{"comparison", 's', "%[1]s REGEXP '^[A-M]'"}, {"comparison", 's', "%[1]s <=> NULL"}, {"comparison", 's', "ISNULL(%[1]s)"},
	{"comparison", 's', "GREATEST(%[1]s, 'M')"}, {"comparison", 's', "LEAST(%[1]s, 'M')"}, {"comparison", 's', "COALESCE(%[1]s, 'z')"},
	// Trailing spaces are insignificant under PAD SPACE collations ('AA '
	// = 'AA'); LIKE does not pad, and takes an ESCAPE character.
	{"comparison", 's', "%[1]s = 'AA '"}, {"comparison", 's', "%[1]s < 'M  '"}, {"comparison", 's', "%[1]s IN ('AA ', 'Zürich ')"},
	{"comparison", 's', "%[1]s BETWEEN 'AA ' AND 'DL '"}, {"comparison", 's', "STRCMP(%[1]s, 'DL ')"}, {"comparison", 's', "%[1]s = CONCAT(%[1]s, ' ')"},
	{"comparison", 's', "%[1]s LIKE 'A!%%' ESCAPE '!'"}, {"comparison", 's', "%[1]s LIKE '_|_%%' ESCAPE '|'"}, {"comparison", 's', "%[1]s LIKE CONCAT(%[1]s, ' ')"},
	{"regexp", 's', "REGEXP_REPLACE(%[1]s, '[aeiouAEIOU]', '_')"}, {"regexp", 's', "REGEXP_SUBSTR(%[1]s, '[A-Z]+')"},
	{"regexp", 's', "REGEXP_INSTR(%[1]s, '[a-z]')"},
	// Control flow.
	{"control flow", 's', "IF(%[1]s > 'M', 'hi', 'lo')"}, {"control flow", 's', "IFNULL(%[1]s, 'none')"}, {"control flow", 's', "NULLIF(%[1]s, 'AA')"},
	{"control flow", 's', "CASE WHEN %[1]s < 'M' THEN 'lo' ELSE 'hi' END"}, {"control flow", 'n', "CASE %[1]s WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'more' END"},
	{"control flow", 'n', "IF(%[1]s > 3, %[1]s, NULL)"}, {"control flow", 'n', "COALESCE(NULLIF(%[1]s, 1), 0)"}, {"control flow", 'd', "IF(%[1]s > '2005-06-01', 'late', 'early')"},
	// Casts and conversions.
	{"cast", 's', "CAST(%[1]s AS BINARY)"}, {"cast", 's', "CAST(%[1]s AS CHAR(2))"}, {"cast", 's', "CONVERT(%[1]s USING utf8mb4)"},
	{"cast", 's', "CONVERT(%[1]s, CHAR)"}, {"cast", 's', "CAST(%[1]s AS SIGNED)"},
	{"cast", 'n', "CAST(%[1]s AS CHAR)"}, {"cast", 'n', "CAST(%[1]s AS SIGNED)"}, {"cast", 'n', "CAST(%[1]s AS UNSIGNED)"},
	{"cast", 'n', "CAST(%[1]s AS DECIMAL(10,3))"}, {"cast", 'n', "CAST(%[1]s AS DOUBLE)"}, {"cast", 'n', "CONVERT(%[1]s, CHAR)"},
	{"cast", 'd', "CAST(%[1]s AS CHAR)"}, {"cast", 'd', "CAST(%[1]s AS DATETIME)"}, {"cast", 'd', "CAST(%[1]s AS SIGNED)"},
	// Numeric functions and operators.
	{"numeric", 'n', "ABS(%[1]s - 4)"}, {"numeric", 'n', "SIGN(%[1]s - 4)"}, {"numeric", 'n', "CEIL(%[1]s / 3)"}, {"numeric", 'n', "CEILING(%[1]s / 3)"},
	{"numeric", 'n', "FLOOR(%[1]s / 3)"}, {"numeric", 'n', "ROUND(%[1]s / 3)"}, {"numeric", 'n', "ROUND(%[1]s / 3, 2)"}, {"numeric", 'n', "TRUNCATE(%[1]s / 3, 1)"},
	{"numeric", 'n', "MOD(%[1]s, 3)"}, {"numeric", 'n', "%[1]s %% 3"}, {"numeric", 'n', "%[1]s DIV 2"}, {"numeric", 'n', "SQRT(%[1]s)"},
	{"numeric", 'n', "POW(%[1]s, 2)"}, {"numeric", 'n', "POWER(%[1]s, 0.5)"}, {"numeric", 'n', "EXP(%[1]s / 100)"}, {"numeric", 'n', "LN(%[1]s)"},
	{"numeric", 'n', "LOG(%[1]s)"}, {"numeric", 'n', "LOG2(%[1]s)"}, {"numeric", 'n', "LOG10(%[1]s)"}, {"numeric", 'n', "LOG(2, %[1]s)"},
	{"numeric", 'n', "SIN(%[1]s)"}, {"numeric", 'n', "COS(%[1]s)"}, {"numeric", 'n', "TAN(%[1]s)"}, {"numeric", 'n', "COT(%[1]s)"},
	{"numeric", 'n', "ASIN(%[1]s / 1000)"}, {"numeric", 'n', "ACOS(%[1]s / 1000)"}, {"numeric", 'n', "ATAN(%[1]s)"}, {"numeric", 'n', "ATAN2(%[1]s, 2)"},
	{"numeric", 'n', "DEGREES(%[1]s)"}, {"numeric", 'n', "RADIANS(%[1]s)"}, {"numeric", 'n', "PI() * %[1]s"},
	{"numeric", 'n', "%[1]s * 1.5"}, {"numeric", 'n', "%[1]s / 7"}, {"numeric", 'n', "-%[1]s"}, {"numeric", 'n', "%[1]s + 0.25"},
	{"numeric", 'n', "GREATEST(%[1]s, 3)"}, {"numeric", 'n', "LEAST(%[1]s, 3)"}, {"numeric", 'n', "INTERVAL(%[1]s, 2, 4, 6)"},
	{"numeric", 'n', "%[1]s BETWEEN 2 AND 5"}, {"numeric", 'n', "%[1]s IN (1, 3, 5)"}, {"numeric", 'n', "FORMAT(%[1]s, 2)"},
	{"numeric", 'n', "FORMAT(%[1]s / 3, 3)"}, {"numeric", 'n', "CRC32(%[1]s)"}, {"numeric", 'n', "CONV(FLOOR(%[1]s), 10, 2)"},
	{"numeric", 'n', "HEX(FLOOR(%[1]s))"}, {"numeric", 'n', "BIN(FLOOR(%[1]s))"}, {"numeric", 'n', "OCT(FLOOR(%[1]s))"},
	{"numeric", 'n', "CONCAT(%[1]s, '')"}, {"numeric", 'n', "LENGTH(%[1]s)"},
	// A DECIMAL quotient's digits past its declared scale: ROUND and
	// TRUNCATE to more places read them, a comparison rounds first, a
	// conversion to a time truncates (planner/quotient.go).
	{"numeric", 'n', "ROUND(%[1]s, 7)"}, {"numeric", 'n', "ROUND(%[1]s / 7, 8)"}, {"numeric", 'n', "TRUNCATE(%[1]s / 7, 7)"},
	{"numeric", 'n', "%[1]s / 7 > 0.5714"}, {"numeric", 'n', "%[1]s / 7 = ROUND(%[1]s / 7, 4)"}, {"numeric", 'n', "%[1]s <=> TRUNCATE(%[1]s, 4)"},
	{"date", 'n', "SEC_TO_TIME(%[1]s / 7)"}, {"date", 'n', "CAST(%[1]s / 3 AS TIME)"}, {"date", 'n', "SEC_TO_TIME(%[1]s)"},
	// Text read as a number: its longest numeric prefix ('9E' is 9).
	{"numeric", 's', "%[1]s + 0"}, {"numeric", 's', "ABS(%[1]s)"}, {"numeric", 's', "CONVERT(%[1]s, DOUBLE)"}, {"numeric", 's', "%[1]s || 0"},
	// Bit functions and operators.
	{"bit", 'n', "FLOOR(%[1]s) << 2"}, {"bit", 'n', "FLOOR(%[1]s) >> 1"}, {"bit", 'n', "FLOOR(%[1]s) & 6"}, {"bit", 'n', "FLOOR(%[1]s) | 8"},
	{"bit", 'n', "FLOOR(%[1]s) ^ 5"}, {"bit", 'n', "~FLOOR(%[1]s)"}, {"bit", 'n', "BIT_COUNT(FLOOR(%[1]s))"},
	// Date and time functions.
	{"date", 'd', "YEAR(%[1]s)"}, {"date", 'd', "MONTH(%[1]s)"}, {"date", 'd', "DAY(%[1]s)"}, {"date", 'd', "DAYOFMONTH(%[1]s)"},
	{"date", 'd', "DAYOFWEEK(%[1]s)"}, {"date", 'd', "DAYOFYEAR(%[1]s)"}, {"date", 'd', "WEEKDAY(%[1]s)"}, {"date", 'd', "WEEK(%[1]s)"},
	{"date", 'd', "WEEK(%[1]s, 3)"}, {"date", 'd', "WEEKOFYEAR(%[1]s)"}, {"date", 'd', "YEARWEEK(%[1]s)"}, {"date", 'd', "QUARTER(%[1]s)"},
	{"date", 'd', "MONTHNAME(%[1]s)"}, {"date", 'd', "DAYNAME(%[1]s)"}, {"date", 'd', "LAST_DAY(%[1]s)"}, {"date", 'd', "TO_DAYS(%[1]s)"},
	{"date", 'd', "TO_SECONDS(%[1]s)"}, {"date", 'd', "FROM_DAYS(TO_DAYS(%[1]s) + 1)"}, {"date", 'd', "DATE_FORMAT(%[1]s, '%%Y/%%m')"},
	{"date", 'd', "DATE_FORMAT(%[1]s, '%%W %%D %%M %%j')"}, {"date", 'd', "DATE_ADD(%[1]s, INTERVAL 1 DAY)"},
	{"date", 'd', "DATE_SUB(%[1]s, INTERVAL 1 MONTH)"}, {"date", 'd', "%[1]s + INTERVAL 1 WEEK"}, {"date", 'd', "ADDDATE(%[1]s, 3)"},
	{"date", 'd', "SUBDATE(%[1]s, 3)"}, {"date", 'd', "DATEDIFF(%[1]s, '2000-01-01')"}, {"date", 'd', "TIMESTAMPDIFF(MONTH, '2000-01-01', %[1]s)"},
	{"date", 'd', "TIMESTAMPADD(HOUR, 5, %[1]s)"}, {"date", 'd', "EXTRACT(YEAR_MONTH FROM %[1]s)"}, {"date", 'd', "DATE(%[1]s)"},
	{"date", 'd', "TIMESTAMP(%[1]s)"}, {"date", 'd', "MAKEDATE(YEAR(%[1]s), 1)"}, {"date", 'd', "PERIOD_ADD(EXTRACT(YEAR_MONTH FROM %[1]s), 2)"},
	{"date", 'd', "STR_TO_DATE(DATE_FORMAT(%[1]s, '%%d/%%m/%%Y'), '%%d/%%m/%%Y')"}, {"date", 'd', "ADDTIME(TIMESTAMP(%[1]s), '01:30:00')"},
	{"date", 'd', "HOUR(TIMESTAMP(%[1]s) + INTERVAL 90 MINUTE)"}, {"date", 'd', "%[1]s > '2005-06-01'"}, {"date", 'd', "CONCAT(%[1]s, '')"},
	{"date", 'n', "FROM_DAYS(FLOOR(%[1]s) + 730000)"}, {"date", 'n', "SEC_TO_TIME(FLOOR(%[1]s) * 100)"}, {"date", 'n', "MAKEDATE(2020, FLOOR(%[1]s))"},
	// JSON.
	{"json", 's', "JSON_QUOTE(%[1]s)"}, {"json", 's', "JSON_ARRAY(%[1]s, 1)"}, {"json", 's', "JSON_OBJECT('k', %[1]s)"},
	{"json", 's', "JSON_EXTRACT(JSON_OBJECT('k', %[1]s), '$.k')"}, {"json", 's', "JSON_UNQUOTE(JSON_QUOTE(%[1]s))"},
	{"json", 'n', "JSON_ARRAY(%[1]s)"}, {"json", 'n', "JSON_LENGTH(JSON_ARRAY(%[1]s, %[1]s))"},
	// MariaDB writes its JSON as built: keys in argument order and
	// duplicated, DOUBLEs with the item's decimals (evalexpr.mariaJSON).
	{"json", 'n', "JSON_OBJECT('b', %[1]s, 'a', 1)"}, {"json", 'n', "JSON_OBJECT('k', %[1]s, 'k', 2)"},
	{"json", 'n', "JSON_ARRAY(%[1]s * 1e0, 1)"}, {"json", 's', "JSON_KEYS(JSON_OBJECT('z', %[1]s, 'a', 1))"},
	{"json", 's', "JSON_EXTRACT(JSON_OBJECT('z', %[1]s, 'a', 1), '$')"},
}
