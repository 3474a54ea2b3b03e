-- Which version of the speech and music model classified a check-in's seconds, when its client
-- says (API v2's classes_model); NULL for those stored before, for API v1 and for check-ins
-- without classes. The answers say per cell which versions its shares come from
-- (docs/sound-classes.md, "Model versions in the shares"). A nullable column without a default
-- is added without rewriting the table.

ALTER TABLE checkin ADD COLUMN classes_model smallint CHECK (classes_model BETWEEN 1 AND 32767);
