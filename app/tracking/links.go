package tracking

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/heraldmail/herald/storage"
)

// Links in sent mail (unsubscribe, subscribe, manage, open pixel, click
// redirect) carry signed tokens rather than ids: nobody can guess another
// contact's unsubscribe link, and a click redirect can only lead to a link
// stored with its email, so Herald cannot be made to redirect anywhere
// else. The key is generated once per installation and kept in the
// settings table.

// Token purposes; the purpose is signed with the payload, so a token made
// for one purpose is refused for another.
const (
	tokenContact byte = 'u' // payload: project id, contact id (unsubscribe, subscribe, manage pages)
	tokenOpen    byte = 'o' // payload: email id
	tokenClick   byte = 'c' // payload: email id, link number (uvarint)
	tokenBounce       = "b" // payload: email id (VERP return path)
)

const linkKeySetting = "link_key"

// linkKeys loads the installation's signing key once.
type linkKeys struct {
	once sync.Once
	key  []byte
	err  error
	// macs are HMAC states keyed with key, reused: a new one hashes the
	// key's two pads, twice the work of a token's own tag.
	macs sync.Pool
}

func (s *Service) linkKey(ctx context.Context) ([]byte, error) {
	s.links.once.Do(func() { s.links.key, s.links.err = s.loadLinkKey(ctx) })
	return s.links.key, s.links.err
}

func (s *Service) loadLinkKey(ctx context.Context) ([]byte, error) {
	var fresh [32]byte
	if _, err := rand.Read(fresh[:]); err != nil {
		return nil, err
	}
	var stored string
	err := s.db.Write(context.WithoutCancel(ctx), func(tx *storage.Tx) error {
		var err error
		stored, err = tx.EnsureSetting(ctx, linkKeySetting, hex.EncodeToString(fresh[:]))
		return err
	})
	if err != nil {
		return nil, err
	}
	return hex.DecodeString(stored)
}

// A link token is base64url(payload ‖ tag), the tag being the first 12
// bytes of HMAC-SHA256(key, purpose ‖ payload). Payloads are binary ids
// rather than text, and a click token names the link by its number in
// the message rather than carrying the URL: every link of a message is
// rewritten, twice counting the text part, so the token's length weighs on
// the size of every tracked message (Gmail clips messages over 102 KB).
const tokenTagSize = 12

// sealToken makes a token for a purpose and payload.
func (s *Service) sealToken(ctx context.Context, purpose byte, payload []byte) (string, error) {
	key, err := s.linkKey(ctx)
	if err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(append(payload, s.links.tag(key, purpose, payload)...)), nil
}

// openToken checks a token and returns its payload.
func (s *Service) openToken(ctx context.Context, purpose byte, token string) ([]byte, error) {
	key, err := s.linkKey(ctx)
	if err != nil {
		return nil, err
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) <= tokenTagSize {
		return nil, ErrBadToken
	}
	payload, tag := raw[:len(raw)-tokenTagSize], raw[len(raw)-tokenTagSize:]
	if !hmac.Equal(tag, s.links.tag(key, purpose, payload)) {
		return nil, ErrBadToken
	}
	return payload, nil
}

// tag is a token's tag; key is k's, loaded.
func (k *linkKeys) tag(key []byte, purpose byte, payload []byte) []byte {
	m, _ := k.macs.Get().(hash.Hash)
	if m == nil {
		m = hmac.New(sha256.New, key)
	}
	m.Write([]byte{purpose})
	m.Write(payload)
	sum := m.Sum(make([]byte, 0, sha256.Size))[:tokenTagSize]
	m.Reset()
	k.macs.Put(m)
	return sum
}

// ErrBadToken is a token this installation did not sign for that purpose.
var ErrBadToken = errors.New("invalid or expired link")

// idBytes appends an id to a token payload: a zero byte and 16 bytes for
// a UUID (every id Herald makes), otherwise its length and its bytes.
func idBytes(payload []byte, id string) ([]byte, error) {
	if u, err := uuid.Parse(id); err == nil && u.String() == id {
		return append(append(payload, 0), u[:]...), nil
	}
	if id == "" || len(id) > 255 {
		return nil, fmt.Errorf("link token for id %q: empty or too long", id)
	}
	return append(append(payload, byte(len(id))), id...), nil
}

// cutID reads an id from the front of a token payload.
func cutID(payload []byte) (id string, rest []byte, ok bool) {
	if len(payload) == 0 {
		return "", nil, false
	}
	n := int(payload[0])
	if n == 0 {
		n = 16
	}
	if len(payload) < 1+n {
		return "", nil, false
	}
	if payload[0] == 0 {
		return uuid.UUID(payload[1:17]).String(), payload[17:], true
	}
	return string(payload[1 : 1+n]), payload[1+n:], true
}

// emailToken signs an open token, or with a link number a click token.
func (s *Service) emailToken(ctx context.Context, purpose byte, emailID string, link int) (string, error) {
	payload, err := idBytes(make([]byte, 0, 17+binary.MaxVarintLen64+tokenTagSize), emailID)
	if err != nil {
		return "", err
	}
	if purpose == tokenClick {
		payload = binary.AppendUvarint(payload, uint64(link))
	}
	return s.sealToken(ctx, purpose, payload)
}

// openEmailToken returns the email id of an open token, or the email id
// and link number of a click token.
func (s *Service) openEmailToken(ctx context.Context, purpose byte, token string) (emailID string, link int, err error) {
	payload, err := s.openToken(ctx, purpose, token)
	if err != nil {
		return "", 0, err
	}
	emailID, rest, ok := cutID(payload)
	if !ok {
		return "", 0, ErrBadToken
	}
	if purpose != tokenClick {
		if len(rest) != 0 {
			return "", 0, ErrBadToken
		}
		return emailID, 0, nil
	}
	n, size := binary.Uvarint(rest)
	if size <= 0 || size != len(rest) || n > math.MaxInt32 {
		return "", 0, ErrBadToken
	}
	return emailID, int(n), nil
}

// ContactLinks are the per-contact URLs offered to templates.
type ContactLinks struct {
	Unsubscribe, Subscribe, Manage string
}

// contactLinks builds a contact's unsubscribe, subscribe and manage URLs.
func (s *Service) ContactLinks(ctx context.Context, projectID, contactID string) (ContactLinks, error) {
	payload, err := idBytes(make([]byte, 0, 34+tokenTagSize), projectID)
	if err == nil {
		payload, err = idBytes(payload, contactID)
	}
	if err != nil {
		return ContactLinks{}, err
	}
	tok, err := s.sealToken(ctx, tokenContact, payload)
	if err != nil {
		return ContactLinks{}, err
	}
	base := strings.TrimSuffix(s.baseURL, "/")
	return ContactLinks{
		Unsubscribe: base + "/unsubscribe/" + tok,
		Subscribe:   base + "/subscribe/" + tok,
		Manage:      base + "/manage/" + tok,
	}, nil
}

// VERP return paths must fit the 64-octet local part of RFC 5321, so the
// bounce token is compact: the email id's hex digits and 6 bytes of MAC.
func (s *Service) VerpToken(ctx context.Context, emailID string) (string, error) {
	key, err := s.linkKey(ctx)
	if err != nil {
		return "", err
	}
	id := strings.ReplaceAll(emailID, "-", "")
	return id + "-" + hex.EncodeToString(verpMAC(key, id)), nil
}

// OpenVERPToken checks a bounce token and returns the email id.
func (s *Service) OpenVERPToken(ctx context.Context, token string) (string, error) {
	key, err := s.linkKey(ctx)
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
	m.Write([]byte(tokenBounce + ":" + id))
	return m.Sum(nil)[:6]
}
