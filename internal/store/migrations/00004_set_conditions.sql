-- Version 4: sets.conditions, a set's run conditions (result.FormatConditions:
-- placement, policy, shield, counters, warm-up, version) for history, which
-- must not blame a change of them on a kernel. Sets written before
-- conditions were recorded have none: '' (unknown).

-- +goose Up
ALTER TABLE sets ADD COLUMN conditions TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE sets DROP COLUMN conditions;
