package mysqlwire

import (
	"strings"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// unbindSyntax restates a syntax error (1064) of sent — b's text with its
// markers bound, or a statement made from it (the LIMIT 0 that describes
// it) — at the statement as the client prepared it: MariaDB's prepare
// reports the text near the error with the client's `?` markers, where
// sent has the NULLs Shoal bound for the prepare ('selec broken NULL'
// where mysqlnd, Connector/C and ODBC clients were told 'selec broken
// ?'). Other errors are returned as they are.
func unbindSyntax(err error, b *sqlparse.Bound, sent string) error {
	near, _, ok := sqlerr.SyntaxNear(err)
	if !ok {
		return err
	}
	p, ok := nearOffset(sent, near)
	if !ok {
		return err
	}
	// sent is b.Text up to their common prefix and ends as b.Text ends
	// past it: an offset in the changed part is where the change begins.
	lo := commonPrefix(sent, b.Text)
	if p > lo {
		p = max(lo, len(b.Text)-(len(sent)-p))
	}
	o := b.OrigOffset(p)
	return sqlerr.Syntax(b.Orig[o:], 1+strings.Count(b.Orig[:o], "\n"))
}

// nearOffset is where in sent the text of a syntax error begins: the
// whole tail of sent, or the start of a longer tail (the server cuts it
// to 80 bytes, MariaDB with "..."). The last such place is taken.
func nearOffset(sent, near string) (int, bool) {
	if strings.HasSuffix(sent, near) {
		return len(sent) - len(near), true
	}
	cut := strings.TrimSuffix(near, "...")
	if cut == "" {
		return 0, false
	}
	at := -1
	for i := 0; ; i++ {
		k := strings.Index(sent[i:], cut)
		if k < 0 {
			break
		}
		i += k
		if len(sent)-i > len(cut) {
			at = i
		}
	}
	return at, at >= 0
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
