package app

import (
	"context"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// AccountUpkeepEvery is how often ended sessions and tokens are removed
// and, with auto-disable on, reputations are checked.
const AccountUpkeepEvery = 5 * time.Minute

func (a *App) runAccountUpkeep(ctx context.Context, _ *queue.RunningJob) (any, error) {
	now := a.now()
	var sessions, tokens int64
	err := a.db.Write(ctx, func(tx *storage.Tx) (err error) {
		if sessions, err = tx.DeleteExpiredSessions(ctx, now); err != nil {
			return err
		}
		// Tokens stay a day past their end: they count toward the hourly
		// cap of mails and answer INVALID_TOKEN the same either way.
		tokens, err = tx.DeleteExpiredUserTokens(ctx, now.Add(-24*time.Hour))
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := a.CheckReputations(ctx); err != nil {
		return nil, err
	}
	return map[string]int64{"sessions": sessions, "tokens": tokens}, nil
}
