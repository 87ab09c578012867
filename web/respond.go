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
