-- What API v2 check-ins measure each second besides avg and peak, and their sums per local hour.
-- NULL details: a second measured without them (every API v1 check-in).

ALTER TABLE sample ADD COLUMN fast_max double precision;      -- dBFS as measured, like avg and peak
ALTER TABLE sample ADD COLUMN c_avg double precision;
ALTER TABLE sample ADD COLUMN oct_500 double precision;
ALTER TABLE sample ADD COLUMN oct_1000 double precision;
ALTER TABLE sample ADD COLUMN oct_2000 double precision;
ALTER TABLE sample ADD COLUMN oct_4000 double precision;

-- Over the kept samples that carry details: how many, and the sums of the energies of their
-- calibrated C-weighted and octave-band levels (v1 check-ins add nothing here).
ALTER TABLE checkin_hour ADD COLUMN detail_samples integer NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN c_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_500_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_1000_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_2000_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN oct_4000_energy double precision NOT NULL DEFAULT 0;

ALTER TABLE loudness ADD COLUMN detail_samples bigint NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN c_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_500_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_1000_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_2000_energy double precision NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN oct_4000_energy double precision NOT NULL DEFAULT 0;
