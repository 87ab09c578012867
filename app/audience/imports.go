package audience

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/csvrows"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// MaxImportBytes is the largest CSV file POST /contacts/import takes.
const MaxImportBytes = 5 << 20

// importChunk is how many rows one write commits: large enough to amortise
// the transaction, small enough not to hold the write lock for long.
const importChunk = 500

// maxImportErrors bounds the per-row reasons kept in an import result
// (rejected counts them all): enough for every bad row of a large file
// with a few percent of them, small enough to show in one answer.
const maxImportErrors = 10000

// ImportResult counts what an import did and why rows were rejected.
type ImportResult struct {
	Created  int           `json:"created"`
	Updated  int           `json:"updated"`
	Rejected int           `json:"rejected"`
	Errors   []ImportError `json:"errors"`
}

// ImportError is why one row was rejected; Row counts records as a
// spreadsheet counts rows, the header being row 1.
type ImportError struct {
	Row    int    `json:"row"`
	Reason string `json:"reason"`
}

// importCheckpoint is saved with every chunk: the data records handled so
// far and the counts of what they did. Rejections are not saved: they
// depend on the file alone, so a rerun finds them again as it reads.
type importCheckpoint struct {
	Row    int          `json:"row"`
	Result ImportResult `json:"result"`
}

type importPayload struct {
	CSV string `json:"csv"`
}

// JobAccepted is the 202 answer to a queued import or bulk request.
type JobAccepted struct {
	JobID string `json:"jobId"`
}

// ImportContacts checks a CSV file's header and queues its import.
func (s *Service) ImportContacts(ctx context.Context, projectID string, file []byte) (JobAccepted, error) {
	if len(file) > MaxImportBytes {
		return JobAccepted{}, &apierr.Error{Kind: apierr.KindTooLarge, Code: "PAYLOAD_TOO_LARGE", Message: "CSV files are limited to 5 MB"}
	}
	if _, err := readImportHeader(csvrows.NewReader(bytes.NewReader(file))); err != nil {
		return JobAccepted{}, apierr.Invalid(apierr.FieldError{Field: "file", Code: "invalid_csv", Message: err.Error()})
	}
	var id string
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		id, err = s.jobs.Enqueue(ctx, tx, queue.JobSpec{Kind: JobImportContacts, ProjectID: projectID,
			Payload: importPayload{CSV: string(file)}})
		return err
	})
	return JobAccepted{JobID: id}, err
}

// runImport streams the file: it reads one record at a time and commits
// the good ones in chunks, each with the job's checkpoint, so a rerun
// after a crash resumes after the last committed chunk and counts nothing
// twice. Memory holds the file (at most 5 MB) and one chunk, whatever the
// number of rows.
func (s *Service) RunImport(ctx context.Context, job *queue.RunningJob) (any, error) {
	var p importPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	var cp importCheckpoint
	if job.Checkpoint != nil {
		if err := json.Unmarshal(job.Checkpoint, &cp); err != nil {
			return nil, queue.Permanent(err)
		}
	}
	r := csvrows.NewReader(strings.NewReader(p.CSV))
	header, err := readImportHeader(r)
	if err != nil {
		return nil, queue.Permanent(err)
	}
	res := ImportResult{Created: cp.Result.Created, Updated: cp.Result.Updated, Errors: []ImportError{}}
	progress := func() int { return int(100 * r.Offset() / max(int64(len(p.CSV)), 1)) }
	var chunk []importRow
	n := 0 // data records read
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n++
		row, reason := header.row(rec)
		switch {
		case reason != "":
			res.reject(rec.Row, reason)
		case n > cp.Row: // rows up to cp.Row were committed by an earlier run
			chunk = append(chunk, row)
		}
		if len(chunk) == importChunk {
			if cp, err = s.importChunk(ctx, job, chunk, n, progress(), cp); err != nil {
				return nil, err
			}
			chunk = chunk[:0]
		}
	}
	if len(chunk) > 0 {
		if cp, err = s.importChunk(ctx, job, chunk, n, 100, cp); err != nil {
			return nil, err
		}
	}
	res.Created, res.Updated = cp.Result.Created, cp.Result.Updated
	return res, nil
}

// reject counts a rejected row and keeps its reason while there is room.
func (res *ImportResult) reject(row int, reason string) {
	res.Rejected++
	if len(res.Errors) < maxImportErrors {
		res.Errors = append(res.Errors, ImportError{Row: row, Reason: reason})
	}
}

// importChunk commits a chunk of good rows and the checkpoint that says
// the records up to lastRecord are done. The write may run more than once
// (the writer reruns a group when one of its writes fails), so each run
// starts again from cp and changes nothing outside the transaction.
func (s *Service) importChunk(ctx context.Context, job *queue.RunningJob, rows []importRow, lastRecord, percent int, cp importCheckpoint) (importCheckpoint, error) {
	var next importCheckpoint
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		next = importCheckpoint{Row: lastRecord, Result: ImportResult{Created: cp.Result.Created, Updated: cp.Result.Updated}}
		for _, row := range rows {
			change, err := s.UpsertInTx(ctx, tx, job.ProjectID, row.contactUpsert())
			if err != nil {
				return err
			}
			if change.Created {
				next.Result.Created++
			} else {
				next.Result.Updated++
			}
		}
		return job.SaveProgress(ctx, tx, percent, next)
	})
	return next, err
}

// JobImportContacts is a CSV import. A kind's name is stored in
// its jobs' rows: never rename one.
const JobImportContacts = "contacts.import"
