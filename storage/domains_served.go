package storage

import (
	"context"
	"database/sql"
	"errors"
)

// DomainRegistered reports whether any project has added the sender
// domain name, verified or not.
func DomainRegistered(ctx context.Context, q Querier, name string) (_ bool, err error) {
	defer wrap(&err, "DomainRegistered")
	var one int
	err = q.QueryRow(ctx, `SELECT 1 FROM domains WHERE domain = ? LIMIT 1`, name).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
