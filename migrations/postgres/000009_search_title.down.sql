ALTER TABLE entries DROP COLUMN search_title;
