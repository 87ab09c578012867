package audience

import (
	"context"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/verify"
)

// VerifyEmail computes the verification result of POST /v1/verify.
func (s *Service) VerifyEmail(ctx context.Context, email *string) (verify.Result, error) {
	var v apierr.Validation
	addr := requireEmail(&v, "email", email)
	if err := v.Err(); err != nil {
		return verify.Result{}, err
	}
	return s.verifier.Verify(ctx, addr), nil
}
