package mysqlwire

import (
	"errors"
	"testing"

	"github.com/shoaldb/shoal/sqlerr"
	"github.com/shoaldb/shoal/sqlparse"
)

// TestCheckUTF8: invalid bytes in literals and comments pass, in a
// back-quoted identifier get 1300 (with the bytes shown as \xHH), elsewhere
// 1064; surrogates' three-byte encodings pass as on MariaDB.
func TestCheckUTF8(t *testing.T) {
	for _, c := range []struct {
		q    string
		code int
		msg  string
	}{
		{"select 'é', `é`", 0, ""},
		{"select '\xff\xfe'", 0, ""},
		{"select \"a\\\"\xff\" from t", 0, ""},
		{"select 'it''s \xc3' -- \xff\nfrom t /* \xfe */ # \xff", 0, ""},
		{"select `\xed\xa0\x80` from t", 0, ""},
		{"select `\xff\xfe` from t", 1300, `'\xFF\xFE'`},
		{"select 1 as `a\xc3`", 1300, `'a\xC3'`},
		{"select `a``\xc3` from t", 1300, "'a``\\xC3'"},
		{"select \xff\xfe from t", 1064, `near '\xFF\xFE from t' at line 1`},
		{"select 1\nfrom t where \xc3(", 1064, "at line 2"},
		{"select '\xff", 0, ""}, // unterminated: the parser's error
	} {
		err := checkUTF8(c.q)
		var se *sqlerr.Error
		switch {
		case c.code == 0 && err != nil:
			t.Errorf("%q: %v, want none", c.q, err)
		case c.code == 0:
		case !errors.As(err, &se) || int(se.Num) != c.code:
			t.Errorf("%q: %v, want error %d", c.q, err, c.code)
		case !sqlparse.ContainsFold(se.Message, c.msg):
			t.Errorf("%q: %q does not say %q", c.q, se.Message, c.msg)
		}
	}
}
