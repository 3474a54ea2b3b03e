-- What API v2 check-ins measure each second besides avg and peak, and their sums per local hour.
-- NULL details: a second measured without them (every API v1 check-in).

ALTER TABLE sample ADD COLUMN fast_max REAL;      -- dBFS as measured, like avg and peak
ALTER TABLE sample ADD COLUMN c_avg REAL;
ALTER TABLE sample ADD COLUMN oct_500 REAL;
ALTER TABLE sample ADD COLUMN oct_1000 REAL;
ALTER TABLE sample ADD COLUMN oct_2000 REAL;
ALTER TABLE sample ADD COLUMN oct_4000 REAL;

-- Over the kept samples that carry details: how many, and the sums of the energies of their
-- calibrated C-weighted and octave-band levels (v1 check-ins add nothing here).
ALTER TABLE checkin_hour ADD COLUMN detail_samples INTEGER NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN c_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_500_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_1000_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_2000_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_4000_energy REAL NOT NULL DEFAULT 0;

ALTER TABLE loudness ADD COLUMN detail_samples INTEGER NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN c_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_500_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_1000_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_2000_energy REAL NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_4000_energy REAL NOT NULL DEFAULT 0;
