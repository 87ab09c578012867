package web

// RouteInfo is a row of the routes table as tests outside the package see
// it.
type RouteInfo struct {
	Method, Path string
	Auth         string // none | public | secret
}

// Routes returns the routes table, for tests that walk every endpoint.
func (s *Server) Routes() []RouteInfo {
	var out []RouteInfo
	for _, rt := range s.routes() {
		auth := map[authKind]string{authNone: "none", authPublic: "public", authSecret: "secret"}[rt.auth]
		out = append(out, RouteInfo{Method: rt.method, Path: rt.path, Auth: auth})
	}
	return out
}
