package evalexpr

import (
	"fmt"

	"vitess.io/vitess/go/mysql/collations"
	"vitess.io/vitess/go/mysql/collations/colldata"
	"vitess.io/vitess/go/sqltypes"
	"vitess.io/vitess/go/vt/sqlparser"
	"vitess.io/vitess/go/vt/vtgate/evalengine"
)

// LIKE … ESCAPE.
//
// vitess' evalengine drops the ESCAPE clause: `Carrier LIKE 'A!A' ESCAPE
// '!'` was matched with '!' as an ordinary character (and '\' as the
// escape), so it matched nothing. It is matched here with vitess'
// wildcard matcher for the collation, after the pattern is rewritten from
// its escape character to the backslash the matcher knows. MySQL's rules
// for the escape character: it must be a constant of at most one
// character (the empty string means the backslash); it escapes the
// character after it, '%' and '_' included, and even when it is '%' or
// '_' itself; at the end of the pattern it is an ordinary character (a
// wildcard if it is one).

// hostLike is `left LIKE pattern ESCAPE esc`.
type hostLike struct {
	left, pat evalengine.Expr
	coll      collations.ID // the collation the match is made under
	esc       rune
	// fixed is the pattern compiled once when it is a constant.
	fixed colldata.WildcardPattern
}

// like returns the column standing for n when n is LIKE with an ESCAPE
// clause (NOT LIKE is NOT over LIKE by now: rewriteNotLike), or nil.
func (h *hoister) like(n sqlparser.SQLNode) sqlparser.Expr {
	cmp, ok := n.(*sqlparser.ComparisonExpr)
	if !ok || cmp.Operator != sqlparser.LikeOp || cmp.Escape == nil {
		return nil
	}
	esc, err := h.escape(cmp.Escape)
	if err != nil {
		h.err = err
		return nil
	}
	hl := &hostLike{esc: esc}
	var lt, pt evalengine.Type
	var lok, pok bool
	hl.left, lt, lok = h.translate(cmp.Left)
	hl.pat, pt, pok = h.translate(cmp.Right)
	if hl.left == nil || hl.pat == nil {
		h.err = fmt.Errorf("LIKE … ESCAPE over %s", sqlparser.String(cmp))
		return nil
	}
	// The collation: the operands' merged as for a comparison; a number
	// is text in the connection's collation.
	hl.coll = h.cfg.Collation
	switch {
	case lok && pok && isText(lt) && isText(pt):
		if _, t, ok := h.translate(sqlparser.NewFuncExpr("coalesce", cmp.Left, cmp.Right)); ok && isText(t) {
			hl.coll = t.Collation()
		}
	case lok && isText(lt):
		hl.coll = lt.Collation()
	case pok && isText(pt):
		hl.coll = pt.Collation()
	}
	// A binary string operand (LIKE BINARY '…', CAST(… AS BINARY)) is
	// IMPLICIT like a column, and binary wins between IMPLICIT operands:
	// the match is on bytes (columnCollations). An EXPLICIT COLLATE on
	// the other side wins over it.
	_, lc := cmp.Left.(*sqlparser.CollateExpr)
	_, rc := cmp.Right.(*sqlparser.CollateExpr)
	if (binaryConversion(cmp.Left) || binaryConversion(cmp.Right)) && !lc && !rc {
		hl.coll = collations.CollationBinaryID
	}
	if colldata.Lookup(hl.coll) == nil {
		h.err = fmt.Errorf("LIKE … ESCAPE under collation %d", hl.coll)
		return nil
	}
	if constant(cmp.Right) {
		r, err := evalengine.EmptyExpressionEnv(h.e.vt).Evaluate(hl.pat)
		if err != nil {
			h.err = err
			return nil
		}
		if v := r.Value(hl.coll); !v.IsNull() {
			hl.fixed = hl.compile(v.Raw())
		}
	}
	nullable := !lok || !pok || lt.Nullable() || pt.Nullable() || isNull(lt) || isNull(pt)
	return h.add(hl, boolType(nullable))
}

// escape evaluates the ESCAPE clause: a constant of at most one
// character (the empty string is the backslash).
func (h *hoister) escape(e sqlparser.Expr) (rune, error) {
	if !constant(e) {
		return 0, fmt.Errorf("ESCAPE %s is not a constant", sqlparser.String(e))
	}
	ex, err := evalengine.Translate(e, h.cfg)
	if err != nil {
		return 0, err
	}
	r, err := evalengine.EmptyExpressionEnv(h.e.vt).Evaluate(ex)
	if err != nil {
		return 0, err
	}
	v := r.Value(collations.CollationUtf8mb4ID)
	if v.IsNull() {
		return 0, fmt.Errorf("ESCAPE NULL")
	}
	s := []rune(v.ToString())
	switch len(s) {
	case 0:
		return '\\', nil
	case 1:
		return s[0], nil
	}
	return 0, fmt.Errorf("ESCAPE %s is not one character", sqlparser.String(e))
}

// constant reports an expression that reads no column.
func constant(e sqlparser.Expr) bool {
	cols := false
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if _, ok := n.(*sqlparser.ColName); ok {
			cols = true
		}
		return !cols, nil
	}, e)
	return !cols
}

// compile turns pat (in the collation's character set) into a matcher.
func (hl *hostLike) compile(pat []byte) colldata.WildcardPattern {
	coll := colldata.Lookup(hl.coll)
	if hl.esc != '\\' {
		pat = backslashEscapes(coll.Charset(), pat, hl.esc)
	}
	return coll.Wildcard(pat, 0, 0, '\\')
}

// backslashEscapes rewrites a pattern whose escape character is esc into
// one whose escape is the backslash: esc before a character becomes a
// backslash, a backslash becomes an escaped one, and esc at the end stays
// as it is.
func backslashEscapes(cs colldata.Charset, pat []byte, esc rune) []byte {
	out := make([]byte, 0, len(pat)+4)
	for len(pat) > 0 {
		r, w, ok := cs.DecodeRune(pat)
		if w <= 0 {
			break
		}
		switch {
		case !ok:
			out = append(out, pat[:w]...)
		case r == esc && len(pat) > w:
			out = append(out, '\\')
			pat = pat[w:]
			_, w, _ = cs.DecodeRune(pat)
			if w <= 0 {
				w = len(pat)
			}
			out = append(out, pat[:w]...)
		case r == '\\':
			out = append(out, '\\', '\\')
		default:
			out = append(out, pat[:w]...)
		}
		pat = pat[w:]
	}
	return out
}

func (hl *hostLike) eval(env *evalengine.ExpressionEnv) (sqltypes.Value, error) {
	r, err := env.Evaluate(hl.left)
	if err != nil {
		return sqltypes.NULL, err
	}
	left := r.Value(hl.coll)
	if left.IsNull() {
		return sqltypes.NULL, nil
	}
	m := hl.fixed
	if m == nil {
		r, err := env.Evaluate(hl.pat)
		if err != nil {
			return sqltypes.NULL, err
		}
		pat := r.Value(hl.coll)
		if pat.IsNull() {
			return sqltypes.NULL, nil
		}
		m = hl.compile(pat.Raw())
	}
	return triOf(m.Match(left.Raw())).value(), nil
}
