-- A search ignores case and accents ("cafe muller" finds "Café Müller"): each venue keeps its
-- name folded as the server folds what is searched for (VenueQuery.folded, Swift's Unicode
-- rules, which SQL here lacks). After this file the server fills the column for every venue
-- (Migrations.Step.venueNamesFolded); from then on the store writes it with the name.
ALTER TABLE venue ADD COLUMN name_folded TEXT NOT NULL DEFAULT '';
