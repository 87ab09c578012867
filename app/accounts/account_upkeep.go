package accounts

import (
	"context"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// AccountUpkeepEvery is how often ended sessions and tokens are removed
// and, with auto-disable on, reputations are checked.
const AccountUpkeepEvery = 5 * time.Minute

func (s *Service) RunAccountUpkeep(ctx context.Context, _ *queue.RunningJob) (_ any, err error) {
	now := s.now()
	var sessions, tokens int64
	err = s.db.Write(ctx, func(tx *storage.Tx) (err error) {
		if sessions, err = tx.DeleteExpiredSessions(ctx, now); err != nil {
			return err
		}
		// Tokens stay a day past their end: they count toward the hourly
		// cap of mails and answer INVALID_TOKEN the same either way.
		if tokens, err = tx.DeleteExpiredUserTokens(ctx, now.Add(-24*time.Hour)); err != nil {
			return err
		}
		_, err = tx.DeleteExpiredInvitations(ctx, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.CheckReputations(ctx); err != nil {
		return nil, err
	}
	return map[string]int64{"sessions": sessions, "tokens": tokens}, nil
}

// JobAccounts is the accounts' periodic upkeep. A kind's name is stored in
// its jobs' rows: never rename one.
const JobAccounts = "accounts.upkeep"
