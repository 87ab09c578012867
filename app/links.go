package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"

	"github.com/heraldmail/herald/storage"
)

// Links in sent mail (unsubscribe, subscribe, manage, open pixel, click
// redirect) carry signed tokens rather than ids: nobody can guess another
// contact's unsubscribe link or make Herald redirect to a URL that was not
// in the message. The key is generated once per installation and kept in
// the settings table.

// Token purposes; the purpose is signed with the payload, so a token made
// for one purpose is refused for another.
const (
	TokenContact = "u" // payload: project id, "/", contact id (unsubscribe, subscribe, manage pages)
	TokenOpen    = "o" // payload: email id
	TokenClick   = "c" // payload: email id, newline, URL
	TokenBounce  = "b" // payload: email id (VERP return path)
)

const linkKeySetting = "link_key"

// linkKeys loads the installation's signing key once.
type linkKeys struct {
	once sync.Once
	key  []byte
	err  error
}

func (a *App) linkKey(ctx context.Context) ([]byte, error) {
	a.links.once.Do(func() { a.links.key, a.links.err = a.loadLinkKey(ctx) })
	return a.links.key, a.links.err
}

func (a *App) loadLinkKey(ctx context.Context) ([]byte, error) {
	var fresh [32]byte
	if _, err := rand.Read(fresh[:]); err != nil {
		return nil, err
	}
	var stored string
	err := a.db.Write(context.WithoutCancel(ctx), func(tx *storage.Tx) error {
		var err error
		stored, err = tx.EnsureSetting(ctx, linkKeySetting, hex.EncodeToString(fresh[:]))
		return err
	})
	if err != nil {
		return nil, err
	}
	return hex.DecodeString(stored)
}

// SignToken makes a token for a purpose and payload.
func (a *App) SignToken(ctx context.Context, purpose, payload string) (string, error) {
	key, err := a.linkKey(ctx)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString([]byte(purpose + ":" + payload))
	return body + "." + tokenMAC(key, body), nil
}

func tokenMAC(key []byte, body string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// ErrBadToken is a token this installation did not sign for that purpose.
var ErrBadToken = errors.New("invalid or expired link")

// OpenToken checks a token and returns its payload.
func (a *App) OpenToken(ctx context.Context, purpose, token string) (string, error) {
	key, err := a.linkKey(ctx)
	if err != nil {
		return "", err
	}
	body, mac, ok := strings.Cut(token, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(tokenMAC(key, body))) {
		return "", ErrBadToken
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return "", ErrBadToken
	}
	payload, found := strings.CutPrefix(string(raw), purpose+":")
	if !found {
		return "", ErrBadToken
	}
	return payload, nil
}

// ContactLinks are the per-contact URLs offered to templates.
type ContactLinks struct {
	Unsubscribe, Subscribe, Manage string
}

// contactLinks builds a contact's unsubscribe, subscribe and manage URLs.
func (a *App) contactLinks(ctx context.Context, projectID, contactID string) (ContactLinks, error) {
	tok, err := a.SignToken(ctx, TokenContact, projectID+"/"+contactID)
	if err != nil {
		return ContactLinks{}, err
	}
	base := strings.TrimSuffix(a.baseURL, "/")
	return ContactLinks{
		Unsubscribe: base + "/unsubscribe/" + tok,
		Subscribe:   base + "/subscribe/" + tok,
		Manage:      base + "/manage/" + tok,
	}, nil
}

// VERP return paths must fit the 64-octet local part of RFC 5321, so the
// bounce token is compact: the email id's hex digits and 6 bytes of MAC.
func (a *App) verpToken(ctx context.Context, emailID string) (string, error) {
	key, err := a.linkKey(ctx)
	if err != nil {
		return "", err
	}
	id := strings.ReplaceAll(emailID, "-", "")
	return id + "-" + hex.EncodeToString(verpMAC(key, id)), nil
}

// OpenVERPToken checks a bounce token and returns the email id.
func (a *App) OpenVERPToken(ctx context.Context, token string) (string, error) {
	key, err := a.linkKey(ctx)
	if err != nil {
		return "", err
	}
	id, mac, ok := strings.Cut(strings.ToLower(token), "-")
	want := hex.EncodeToString(verpMAC(key, id))
	if !ok || len(id) != 32 || !hmac.Equal([]byte(mac), []byte(want)) {
		return "", ErrBadToken
	}
	return id[0:8] + "-" + id[8:12] + "-" + id[12:16] + "-" + id[16:20] + "-" + id[20:], nil
}

func verpMAC(key []byte, id string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(TokenBounce + ":" + id))
	return m.Sum(nil)[:6]
}
