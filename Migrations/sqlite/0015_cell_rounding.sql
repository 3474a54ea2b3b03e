-- How far each of a cell's energies may be from adding up its seconds afresh, as a share of it:
-- a weekday's, an hour's and the overall cell follow a status change by taking the changed cells'
-- old sums away, which leaves rounding (LoudnessAggregate+Rounding.swift). 0 for cells only ever
-- added up, as every stored cell is until now.

ALTER TABLE loudness ADD COLUMN rounding REAL NOT NULL DEFAULT 0 CHECK (rounding >= 0);
