package audience

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// An Audience is a compiled condition: storage.Audience. This file is the
// engine's entry for segments, campaigns (audienceCondition) and workflow
// CONDITION steps: parse the JSON with ParseCondition, check references of
// a tree being saved with CheckCondition, compile with ConditionAudience or
// SegmentAudience, then count, page, batch or test one contact with the
// storage.*Audience* queries.
type Audience = storage.Audience

// CheckCondition checks the segment references of a tree about to be
// saved: each must name a segment of the project, and none may lead back
// to self, the segment being saved ("" for a campaign). Failures are 422
// items at the referring filter's path. Call it inside the write that
// saves the tree, so that two concurrent edits cannot close a cycle.
func (s *Service) CheckCondition(ctx context.Context, q storage.Querier, projectID string, c *Condition, path, self string) error {
	comp := s.newCompiler(ctx, q, projectID)
	comp.strict, comp.path = true, path
	if self != "" {
		comp.visiting[self] = true
	}
	comp.match(c)
	if comp.err != nil {
		return comp.err
	}
	return comp.v.Err()
}

// ConditionAudience compiles a tree into the audience it selects now.
// A segment it names that no longer exists selects nobody.
func (s *Service) ConditionAudience(ctx context.Context, q storage.Querier, projectID string, c *Condition) (Audience, error) {
	comp := s.newCompiler(ctx, q, projectID)
	m := comp.match(c)
	if err := comp.failure(); err != nil {
		return Audience{}, err
	}
	return Audience{ProjectID: projectID, Match: m}, nil
}

// SegmentAudience is the audience of a segment now: its member rows when
// STATIC, its condition when DYNAMIC.
func (s *Service) SegmentAudience(ctx context.Context, q storage.Querier, g storage.Segment) (Audience, error) {
	if g.Type == storage.SegmentStatic {
		return Audience{ProjectID: g.ProjectID, Match: &storage.Match{Groups: []storage.MatchGroup{{
			Tests: []storage.Test{{Source: storage.SourceMembers, Op: storage.OpExists, Segment: g.ID}}}}}}, nil
	}
	cond, err := storedCondition(g)
	if err != nil {
		return Audience{}, err
	}
	comp := s.newCompiler(ctx, q, g.ProjectID)
	comp.visiting[g.ID] = true
	m := comp.match(cond)
	if err := comp.failure(); err != nil {
		return Audience{}, err
	}
	return Audience{ProjectID: g.ProjectID, Match: m}, nil
}

// ContactMatches reports whether a contact meets a tree now: a workflow
// CONDITION step. Every index read becomes a lookup of that contact.
func (s *Service) ContactMatches(ctx context.Context, projectID, contactID string, c *Condition) (bool, error) {
	aud, err := s.ConditionAudience(ctx, s.db.Reader(), projectID, c)
	if err != nil {
		return false, err
	}
	return storage.AudienceHas(ctx, s.db.Reader(), aud, contactID)
}

// storedCondition parses a dynamic segment's saved tree, which was checked
// when it was saved.
func storedCondition(g storage.Segment) (*Condition, error) {
	if len(g.Condition) == 0 || string(g.Condition) == "null" {
		return nil, fmt.Errorf("segment %s: dynamic segment without a condition", g.ID)
	}
	c, err := ParseCondition(g.Condition, "condition")
	if err != nil {
		return nil, fmt.Errorf("segment %s: stored condition: %w", g.ID, err)
	}
	return c, nil
}

// compiler turns checked trees into storage matches: relative times
// become instants of one reading of the clock, and segment references
// become the segment's rows or its own tree, inlined.
type compiler struct {
	ctx       context.Context
	q         storage.Querier
	projectID string
	now       time.Time
	strict    bool            // references must resolve: a tree being saved
	path      string          // where the tree is, for whole-tree errors
	visiting  map[string]bool // segments being expanded: reaching one is a cycle
	at        string          // path of the root filter whose reference is expanding
	depth     int             // how many referenced segments are being expanded
	tests     int
	v         apierr.Validation
	err       error // an internal failure
}

func (s *Service) newCompiler(ctx context.Context, q storage.Querier, projectID string) *compiler {
	return &compiler{ctx: ctx, q: q, projectID: projectID, now: s.now(), visiting: map[string]bool{}}
}

// failure is the compile's error for an audience: internal errors, and
// problems that checking at save time rules out (a cycle closed since).
func (c *compiler) failure() error {
	if c.err != nil {
		return c.err
	}
	return c.v.Err()
}

func (c *compiler) match(cond *Condition) *storage.Match {
	m := &storage.Match{Any: cond.Logic == "OR"}
	for _, g := range cond.Groups {
		var mg storage.MatchGroup
		for _, f := range g.Filters {
			mg.Tests = append(mg.Tests, c.test(f))
		}
		if g.Conditions != nil {
			mg.Nested = c.match(g.Conditions)
		}
		m.Groups = append(m.Groups, mg)
	}
	return m
}

func (c *compiler) test(f ConditionFilter) storage.Test {
	c.tests++
	if c.tests == maxCompiledTests+1 {
		c.v.Add(c.path, "too_big", "The condition, with the segments it refers to, holds too many filters", c.tests)
	}
	t := f.spec.test
	if f.spec.window > 0 {
		t.Value = c.now.Add(-f.spec.window)
	}
	if f.spec.segment != "" {
		if c.at == "" {
			c.at = f.spec.refPath
			defer func() { c.at = "" }()
		}
		c.segment(&t, f.spec.segment)
	}
	return t
}

// segment resolves a membership test on segment id.
func (c *compiler) segment(t *storage.Test, id string) {
	t.Source = storage.SourceNone
	if c.visiting[id] {
		c.v.Add(c.at, "segment_cycle", "The segment refers back to itself through segment "+id, id)
		return
	}
	g, err := storage.SegmentByID(c.ctx, c.q, c.projectID, id)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		// Only the tree being saved is held to its references; one that a
		// referenced segment makes is that segment's, and selects nobody.
		if c.strict && c.depth == 0 {
			c.v.Add(c.at, "segment_not_found", "No segment "+id+" in this project", id)
		}
		return
	case err != nil:
		c.err = err
		return
	case g.Type == storage.SegmentStatic:
		t.Source, t.Segment = storage.SourceMembers, g.ID
		return
	}
	cond, err := storedCondition(g)
	if err != nil {
		c.err = err
		return
	}
	c.visiting[id] = true
	c.depth++
	t.Source, t.Match = storage.SourceMatch, c.match(cond)
	c.depth--
	delete(c.visiting, id)
}

// encodeCondition is the JSON a tree is saved as.
func EncodeCondition(c *Condition) json.RawMessage {
	b, err := json.Marshal(c)
	if err != nil {
		panic("encode condition: " + err.Error()) // values came from decoded JSON
	}
	return b
}

// Campaign audience types.
const (
	AudienceAll      = "ALL"
	AudienceSegment  = "SEGMENT"
	AudienceFiltered = "FILTERED"
)
