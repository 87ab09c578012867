package web

import (
	"encoding/json"
	"net/http"
)

// writeJSON writes v as the response body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// publicOK is the /v1 success envelope: {success: true, data}.
type publicOK struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

func writeData(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, publicOK{Success: true, Data: data})
}

// noContent answers a delete.
func noContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// reply returns a function that writes an app method's result with the
// status, or passes its error on to writeError. Handlers end with
// `return reply(w, http.StatusOK)(s.app.Method(...))`.
func reply(w http.ResponseWriter, status int) func(any, error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		writeJSON(w, status, v)
		return nil
	}
}

// replyData is reply for the /v1 envelope {success: true, data}.
func replyData(w http.ResponseWriter, status int) func(any, error) error {
	return func(v any, err error) error {
		if err != nil {
			return err
		}
		writeData(w, status, v)
		return nil
	}
}
