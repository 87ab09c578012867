package web

import "net/http"

// fastBody is a request body with a one-pass reader for its plain forms
// (send_decode.go, track_decode.go). decodeFast reports false for
// anything it does not know, and decodeBytes, whose results and errors
// are the contract, reads the body again.
type fastBody[T any] interface {
	*T
	decodeFast(body []byte) bool
}

// decodeFastJSON is decodeJSON for a body with a fast path.
func decodeFastJSON[T any, P fastBody[T]](r *http.Request, b P) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeFastBytes(body, b)
}

// decodeFastBytes is decodeBytes(body, b), by b's fast path when it can.
func decodeFastBytes[T any, P fastBody[T]](body []byte, b P) error {
	if b.decodeFast(body) {
		return nil
	}
	var zero T
	*b = zero // the fast path may have filled part of it
	return decodeBytes(body, b)
}
