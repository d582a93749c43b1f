-- Version 5: session_noise.source, where a noise was measured: 'calibrate'
-- (kdelta calibrate's A/A sessions) or 'twins' (learned from stored sets
-- that differ in nothing kdelta knows). A calibration of the host wins
-- over what twins teach. Noises recorded before the source was kept have
-- none: '' (not told).

-- +goose Up
ALTER TABLE session_noise ADD COLUMN source TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE session_noise DROP COLUMN source;
