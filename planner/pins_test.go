package planner

import "testing"

func TestReplaceTables(t *testing.T) {
	def := func(db, name string) (string, bool) {
		if db == "ontime" && name == "u" {
			return "SELECT 1 AS a UNION ALL SELECT 2", true
		}
		if db == "ontime" && name == "recent" {
			return "SELECT * FROM `ontime`.`ontime` WHERE `YearD`>=2009", true
		}
		return "", false
	}
	cases := []struct{ in, want string }{
		{"select count(*) from recent where Carrier='AA'",
			"SELECT COUNT(1) FROM (SELECT * FROM `ontime`.`ontime` WHERE `YearD`>=2009) AS `recent` WHERE `Carrier`=_UTF8MB4'AA'"},
		{"select r.Carrier from ontime.recent r join carriers c on c.code=r.Carrier",
			"SELECT `r`.`Carrier` FROM (SELECT * FROM `ontime`.`ontime` WHERE `YearD`>=2009) AS `r` JOIN `carriers` AS `c` ON `c`.`code`=`r`.`Carrier`"},
		{"select 1 from other.recent", "SELECT 1 FROM `other`.`recent`"},
		{"select * from ontime.u", "SELECT * FROM (SELECT 1 AS `a` UNION ALL SELECT 2) AS `u`"},
	}
	for _, c := range cases {
		got, err := ReplaceTables(c.in, "ontime", def)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
