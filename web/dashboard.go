package web

import (
	"net/http"

	"github.com/heraldmail/herald/web/dashboard"
)

// withDashboard sends / and /app/… to the dashboard's files and every
// other path to the API's router. The dashboard's pages call the API like
// any client, so it needs nothing of the routes table.
func withDashboard(api http.Handler) http.Handler {
	dash := dashboard.New()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dashboard.Owns(r.URL.Path) {
			dash.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})
}
