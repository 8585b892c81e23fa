package engine

import (
	"context"
	"errors"

	"github.com/shoaldb/shoal/engine/schedule"
)

// Warnings of distributed statements.
//
// A fragment's statement can raise warnings on its replica (a string
// compared as a number: 1292 per row; a value truncated). MariaDB reports
// them with the statement (the warning count in the result's last packet)
// and lists them in SHOW WARNINGS, where clients and the mariadb CLI show
// them. Fragments cut the statement's work differently from the replica's
// one scan (a constant's conversion warns once per fragment, a per-row
// warning once per row), so their warnings cannot be summed into
// MariaDB's. Instead, a statement whose fragment warned, while nothing of
// its result has been sent, runs on one replica unchanged: the client gets
// the replica's rows and warnings, exact by construction, at the price of
// the part of the distributed run already done (the first fragment to
// finish with warnings ends it). Statements without warnings, nearly every
// reporting statement, pay one `SELECT @@warning_count` per fragment on the
// worker's connection. A plan that warned once sends the later runs of
// its text to the replica at once (prepared.warns), until the plan cache
// drops it (a catalog refresh). The same holds for a division by zero in the
// final stage (x / 0 over merged values), which MariaDB answers with
// warning 1365.

type warnStopKey struct{}

// stopOnWarnings returns ctx carrying stop, which the scheduler asks when
// a fragment warned (schedule.Job.StopOnWarnings).
func stopOnWarnings(ctx context.Context, stop func() bool) context.Context {
	return context.WithValue(ctx, warnStopKey{}, stop)
}

// warnStop is the stop function ctx carries, nil if none.
func warnStop(ctx context.Context) func() bool {
	f, _ := ctx.Value(warnStopKey{}).(func() bool)
	return f
}

// errDivisionByZero ends a statement whose final stage divides a merged
// value by zero (evalexpr.DividesByZero), before anything is sent: MariaDB
// warns 1365 there, and the replica answers with that warning.
var errDivisionByZero = errors.New("the final stage divides by zero: MariaDB warns")

// warned reports whether err ended an execution because a fragment warned
// or the final stage divided by zero.
func warned(err error) bool {
	_, ok := errors.AsType[*schedule.Warned](err)
	return ok || errors.Is(err, errDivisionByZero)
}
