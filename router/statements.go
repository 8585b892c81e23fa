package router

import "strings"

// isShowReplicas reports whether query is SHOW SHOAL REPLICAS (any case,
// any whitespace, an optional trailing semicolon). The TiDB parser does
// not know the statement, so the handler checks for it before parsing.
func isShowReplicas(query string) bool {
	q := strings.TrimSpace(query)
	q = strings.TrimSpace(strings.TrimSuffix(q, ";"))
	f := strings.Fields(q)
	return len(f) == 3 && strings.EqualFold(f[0], "SHOW") && strings.EqualFold(f[1], "SHOAL") && strings.EqualFold(f[2], "REPLICAS")
}
