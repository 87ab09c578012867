package web

// RouteInfo is a row of the routes table as tests outside the package see
// it.
type RouteInfo struct {
	Method, Path string
	Auth         string // none | public | secret | login | user | project; "" when the row declares none
	Role         string // least role of a project route
}

// Routes returns the routes table, for tests that walk every endpoint.
func (s *Server) Routes() []RouteInfo {
	var out []RouteInfo
	for _, rt := range s.routes() {
		auth := map[authKind]string{authNone: "none", authPublic: "public", authSecret: "secret",
			authLogin: "login", authUser: "user", authProject: "project"}[rt.auth]
		out = append(out, RouteInfo{Method: rt.method, Path: rt.path, Auth: auth, Role: string(rt.role)})
	}
	return out
}
