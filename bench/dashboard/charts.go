package dashboard

import (
	"fmt"
	"strings"
)

// Chart is one chart of a BI dashboard: a query template over a slice of
// the ontime table. {table} stands for the table read and {slice} for the
// slice's condition, so the same chart reads a pinned copy through Shoal
// (FROM recent WHERE <slice>) and the source table directly
// (FROM ontime WHERE <slice>) and the answers stay comparable.
//
// Every ORDER BY is total (ties broken on the group key), so two correct
// answers are equal row for row, LIMIT included.
type Chart struct {
	Name string
	SQL  string
}

// Slice is the rows a dashboard reads: Table, filtered by Where (a SQL
// condition; empty: every row).
type Slice struct {
	Table string
	Where string
}

// Render returns the chart's SQL over s.
func (c Chart) Render(s Slice) string {
	where := "1 = 1"
	if strings.TrimSpace(s.Where) != "" {
		where = "(" + s.Where + ")"
	}
	return strings.NewReplacer("{table}", s.Table, "{slice}", where).Replace(c.SQL)
}

// RecentSlice is the default dashboard slice: the last years years of
// data, by YearD, up to lastYear (the newest year in the table).
func RecentSlice(table string, lastYear, years int) Slice {
	return Slice{Table: table, Where: fmt.Sprintf("YearD >= %d", lastYear-years+1)}
}

// Dashboard returns the 15 chart queries of the dashboard workload: what a
// BI tool refreshing an airline-operations dashboard sends: KPI tiles,
// bar charts by carrier, airport and weekday, monthly and daily trend
// lines, a heatmap, a histogram and top-10 tables.
func Dashboard() []Chart {
	return []Chart{
		{"kpi_tiles", "SELECT COUNT(*) AS flights, SUM(Cancelled) AS cancelled, SUM(Diverted) AS diverted, AVG(ArrDelayMinutes) AS avg_arr_delay, MAX(DepDelayMinutes) AS max_dep_delay FROM {table} WHERE {slice}"},
		{"flights_by_carrier", "SELECT Carrier, COUNT(*) AS flights FROM {table} WHERE {slice} GROUP BY Carrier ORDER BY flights DESC, Carrier"},
		{"flights_by_weekday", "SELECT DayOfWeek, COUNT(*) AS flights FROM {table} WHERE {slice} GROUP BY DayOfWeek ORDER BY DayOfWeek"},
		{"flights_by_month", "SELECT YearD, MonthD, COUNT(*) AS flights FROM {table} WHERE {slice} GROUP BY YearD, MonthD ORDER BY YearD, MonthD"},
		{"daily_trend_30d", "SELECT FlightDate, COUNT(*) AS flights, SUM(Cancelled) AS cancelled FROM {table} WHERE {slice} GROUP BY FlightDate ORDER BY FlightDate DESC LIMIT 30"},
		{"top10_origins_delay", "SELECT Origin, COUNT(*) AS flights, AVG(DepDelayMinutes) AS avg_dep_delay, AVG(ArrDelayMinutes) AS avg_arr_delay FROM {table} WHERE {slice} GROUP BY Origin ORDER BY flights DESC, Origin LIMIT 10"},
		{"cancel_rate_by_carrier", "SELECT Carrier, COUNT(*) AS flights, SUM(Cancelled) AS cancelled, ROUND(100 * SUM(Cancelled) / COUNT(*), 2) AS cancel_pct FROM {table} WHERE {slice} GROUP BY Carrier ORDER BY cancel_pct DESC, Carrier"},
		{"arr_delay_by_carrier", "SELECT Carrier, AVG(ArrDelayMinutes) AS avg_arr_delay, SUM(IF(ArrDelayMinutes > 15, 1, 0)) AS late FROM {table} WHERE {slice} AND Cancelled = 0 GROUP BY Carrier ORDER BY avg_arr_delay DESC, Carrier"},
		{"top10_routes", "SELECT Origin, Dest, COUNT(*) AS flights, AVG(Distance) AS avg_distance FROM {table} WHERE {slice} GROUP BY Origin, Dest ORDER BY flights DESC, Origin, Dest LIMIT 10"},
		{"top10_states", "SELECT OriginState, COUNT(*) AS departures, SUM(Cancelled) AS cancelled FROM {table} WHERE {slice} GROUP BY OriginState ORDER BY departures DESC, OriginState LIMIT 10"},
		{"distance_histogram", "SELECT FLOOR(Distance / 250) * 250 AS band, COUNT(*) AS flights FROM {table} WHERE {slice} GROUP BY band ORDER BY band"},
		{"delay_heatmap", "SELECT DayOfWeek, MonthD, AVG(DepDelayMinutes) AS avg_dep_delay FROM {table} WHERE {slice} GROUP BY DayOfWeek, MonthD ORDER BY DayOfWeek, MonthD"},
		{"quarterly_delays", "SELECT YearD, Quarter, AVG(DepDelayMinutes) AS avg_dep_delay, AVG(ArrDelayMinutes) AS avg_arr_delay, ROUND(100 * SUM(Diverted) / COUNT(*), 3) AS diverted_pct FROM {table} WHERE {slice} GROUP BY YearD, Quarter ORDER BY YearD, Quarter"},
		{"fleet_by_carrier", "SELECT Carrier, COUNT(DISTINCT TailNum) AS aircraft, COUNT(*) AS flights FROM {table} WHERE {slice} GROUP BY Carrier ORDER BY aircraft DESC, Carrier"},
		{"top10_late_dests", "SELECT Dest, COUNT(*) AS arrivals, ROUND(100 * SUM(IF(ArrDelayMinutes > 30, 1, 0)) / COUNT(*), 2) AS late_pct FROM {table} WHERE {slice} GROUP BY Dest ORDER BY arrivals DESC, Dest LIMIT 10"},
	}
}

// ColumnCompareChart is a chart whose filter compares two columns
// (OriginState <> DestState: two dictionary columns), timed apart from
// the dashboard by `shoal bench dashboard --vary`.
func ColumnCompareChart() Chart {
	return Chart{"interstate_by_carrier", "SELECT Carrier, COUNT(*) AS flights, AVG(ArrDelayMinutes) AS avg_arr_delay FROM {table} WHERE {slice} AND OriginState <> DestState GROUP BY Carrier ORDER BY flights DESC, Carrier"}
}
