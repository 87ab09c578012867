-- +goose Up
-- A body may be stored compressed: codec 0 is the signed bytes as they
-- are, 1 an S2 block of them (github.com/klauspost/compress/s2). A 27 KB
-- newsletter is seven overflow pages, each written to the WAL and again to
-- the database file by the checkpoint, and most of a send's disk writes;
-- compressed it is one page or fits in its row.
ALTER TABLE email_bodies ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;

-- +goose Down
-- SQL cannot decompress a body: refuse while compressed ones still wait
-- for delivery (a CHECK constraint failure names the reason).
CREATE TEMP TABLE email_body_codec_down (compressed INTEGER CHECK (compressed = 0));
INSERT INTO email_body_codec_down SELECT count(*) FROM email_bodies WHERE codec <> 0;
DROP TABLE email_body_codec_down;
ALTER TABLE email_bodies DROP COLUMN codec;
