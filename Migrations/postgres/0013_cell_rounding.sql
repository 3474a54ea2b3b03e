-- How far each of a cell's energies may be from adding up its seconds afresh, as a share of it:
-- a weekday's, an hour's and the overall cell follow a status change by taking the changed cells'
-- old sums away, which leaves rounding (LoudnessAggregate+Rounding.swift). 0 for cells only ever
-- added up, as every stored cell is until now. A column with a constant default is added without
-- rewriting the table.

ALTER TABLE loudness ADD COLUMN rounding double precision NOT NULL DEFAULT 0 CHECK (rounding >= 0);
