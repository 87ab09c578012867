package paging

// NumberedPage is one page of a page-numbered list:
// {data, page, pageSize, total, totalPages} (GET /segments/{id}/contacts,
// GET /campaigns).
type NumberedPage[T any] struct {
	Data       []T `json:"data"`
	Page       int `json:"page"`
	PageSize   int `json:"pageSize"`
	Total      int `json:"total"`
	TotalPages int `json:"totalPages"`
}

// Page-numbered list limits.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// PageRequest is a page number and size as the client gave them; zero
// means not given.
type PageRequest struct {
	Page     int
	PageSize int
}

// clamp applies the rules: page 1-based, at least 1; pageSize default 20,
// between 1 and 100.
func (p PageRequest) Clamp() PageRequest {
	if p.Page < 1 {
		p.Page = 1
	}
	switch {
	case p.PageSize == 0:
		p.PageSize = DefaultPageSize
	case p.PageSize < 1:
		p.PageSize = 1
	case p.PageSize > MaxPageSize:
		p.PageSize = MaxPageSize
	}
	return p
}

// offset is how many rows the page skips.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.PageSize }

// numberedPage assembles a page; totalPages is 0 for an empty list.
func Numbered[T any](rows []T, p PageRequest, total int) NumberedPage[T] {
	if rows == nil {
		rows = []T{}
	}
	return NumberedPage[T]{Data: rows, Page: p.Page, PageSize: p.PageSize, Total: total,
		TotalPages: (total + p.PageSize - 1) / p.PageSize}
}
