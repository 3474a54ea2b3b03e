-- Speech and music, as API v2 check-ins carry them each second (whole percent, 0 to 100), and per
-- local hour and cell how many kept seconds were classified and in how many speech and music were
-- detected (50 % or more), from which the cells' speech and music shares are read.
-- NULL speech and music: a second measured without them (API v1, or a meter below 14 kHz). Rows
-- stored before hold no classes, so the zero counts are already right: nothing is derived again.

ALTER TABLE sample ADD COLUMN speech smallint;
ALTER TABLE sample ADD COLUMN music smallint;

ALTER TABLE checkin_hour ADD COLUMN classified_samples integer NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN speech_samples integer NOT NULL DEFAULT 0;
ALTER TABLE checkin_hour ADD COLUMN music_samples integer NOT NULL DEFAULT 0;

ALTER TABLE loudness ADD COLUMN classified_samples bigint NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN speech_samples bigint NOT NULL DEFAULT 0;
ALTER TABLE loudness ADD COLUMN music_samples bigint NOT NULL DEFAULT 0;

-- What a loud event's seconds mostly held: 'speech', 'music' or 'other'; NULL when unclassified.
ALTER TABLE event ADD COLUMN class text CHECK (class IN ('speech', 'music', 'other'));
