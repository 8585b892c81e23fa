package e2e

import "testing"

// TestQuotientDigitsAfterMerge: a DECIMAL quotient (AVG of integers or
// DECIMALs, SUM(x) / 7, COUNT(*) / 7) has internal digits beyond its
// declared scale, and MariaDB reads them three ways after the merge
// (planner/quotient.go):
//
//   - a comparison operator rounds each DECIMAL operand to its declared
//     scale first: with AVG(Distance) = 1107.4237288…, AVG(Distance) =
//     1107.4237 is 1 and AVG(Distance) > 1107.42372 is 0; the merge
//     compared all the digits (0 and 1). It now compares
//     ROUND(operand, scale), and stays distributed;
//   - ROUND and TRUNCATE to more places than the declared scale read the
//     internal digits (ROUND(AVG(x), 6) is 1107.423729); the evaluator
//     cut the value at its declared scale (1107.423700): on a replica;
//   - a conversion to a time truncates (SEC_TO_TIME(AVG(x)) .3014, CAST
//     AS TIME 00:00:01 for 1.9675), the evaluator rounded (.3015,
//     00:00:02); MIN(d) + INTERVAL AVG(x) SECOND was NULL: on a replica;
//   - a UNION ALL column of a wider scale than a branch's quotient shows
//     the internal digits: such a union runs on a replica.
//
// It also needs DECIMAL columns' scale in the catalog, which was read as
// 0 for every column (IFNULL(NUMERIC_SCALE, 0) is a DECIMAL on MariaDB).
func TestQuotientDigitsAfterMerge(t *testing.T) {
	// Comparisons stay distributed, now rounded as MariaDB rounds them.
	for _, q := range []string{
		"SELECT Carrier, AVG(Distance) = ROUND(AVG(Distance), 4), AVG(Distance) <> TRUNCATE(AVG(Distance), 4), SUM(Distance) / 7 <= ROUND(SUM(Distance) / 7, 4) FROM ontime GROUP BY Carrier ORDER BY Carrier",
		"SELECT Carrier, COUNT(*) FROM ontime GROUP BY Carrier HAVING AVG(ArrDelayMinutes) > TRUNCATE(AVG(ArrDelayMinutes), 4) OR AVG(ArrDelayMinutes) >= ROUND(AVG(ArrDelayMinutes), 4) ORDER BY Carrier",
		"SELECT Carrier, AVG(Distance) a FROM ontime GROUP BY Carrier HAVING a <> ROUND(a, 4) ORDER BY Carrier",
		"SELECT DayOfWeek, IF(COUNT(*) / 7 > TRUNCATE(COUNT(*) / 7, 4), 'up', 'down') FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek",
		"SELECT u8, AVG(amount) < ROUND(AVG(amount), 6), AVG(n) = ROUND(AVG(n), 4) FROM " + mixedTable + " GROUP BY u8 ORDER BY u8",
		// Against text MariaDB compares in DECIMAL too; against a DOUBLE
		// it compares all the digits, as the evaluator does.
		"SELECT Carrier, AVG(Distance) = '1000', AVG(Distance) > 900.5e0, AVG(Distance) * 1e0 > 1000 FROM ontime GROUP BY Carrier ORDER BY Carrier",
	} {
		diffWhere(t, "split ", q)
	}
	// The others run on a replica; the answers are the server's.
	for _, q := range []string{
		"SELECT Carrier, ROUND(AVG(Distance), 6), TRUNCATE(AVG(ArrDelayMinutes), 8), ROUND(SUM(Distance) / 7, 9) FROM ontime GROUP BY Carrier ORDER BY Carrier",
		"SELECT DayOfWeek, ROUND(COUNT(*) / 7, 6), ROUND(AVG(Distance) * 2, 7) FROM ontime GROUP BY DayOfWeek ORDER BY DayOfWeek",
		"SELECT u8, ROUND(AVG(amount), 9) FROM " + mixedTable + " GROUP BY u8 ORDER BY u8",
		"SELECT Carrier, SEC_TO_TIME(AVG(ArrDelayMinutes)), CAST(AVG(DepDelayMinutes) AS TIME), SEC_TO_TIME(SUM(Distance) / 7) FROM ontime GROUP BY Carrier ORDER BY Carrier",
		"SELECT Carrier, MIN(FlightDate) + INTERVAL AVG(ArrDelayMinutes) SECOND, FROM_UNIXTIME(AVG(Distance) + 1600000000) FROM ontime GROUP BY Carrier ORDER BY Carrier",
		"SELECT SEC_TO_TIME(AVG(ArrDelayMinutes)), ROUND(AVG(Distance), 7) FROM ontime",
	} {
		diff(t, q, true)
	}
	// A UNION ALL column wider than a branch's quotient: MariaDB shows
	// the quotient's internal digits (AVG(Distance) at scale 6), the
	// branch's merged value was padded (…4237000000 vs …4237288136).
	diff(t, "SELECT Carrier, AVG(Distance) FROM ontime GROUP BY Carrier UNION ALL SELECT u8, AVG(amount) FROM "+mixedTable+" GROUP BY u8", false)
}
