-- What sort of place a venue is (VenueKind): estimates for hours nobody measured lean on venues of
-- the same kind. NULL until its owner or an operator says.
ALTER TABLE venue ADD COLUMN kind text CHECK (kind IN ('bar', 'pub', 'restaurant', 'cafe', 'club', 'other'));
