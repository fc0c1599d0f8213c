DROP INDEX oauth_sessions_parent;
DROP TABLE oauth_signins;
