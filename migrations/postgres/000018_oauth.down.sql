DROP TABLE oauth_refresh_tokens;
DROP TABLE oauth_sessions;
DROP TABLE oauth_clients;
