ALTER TABLE oauth_sessions DROP COLUMN ended_why;
DROP INDEX oauth_sessions_parent;
DROP TABLE oauth_signins;
