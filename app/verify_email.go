package app

import (
	"context"

	"github.com/heraldmail/herald/app/verify"
)

// VerifyEmail computes the verification result of POST /v1/verify.
func (a *App) VerifyEmail(ctx context.Context, email *string) (verify.Result, error) {
	var v Validation
	addr := requireEmail(&v, "email", email)
	if err := v.Err(); err != nil {
		return verify.Result{}, err
	}
	return a.verifier.Verify(ctx, addr), nil
}
