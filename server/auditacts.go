package server

import (
	"strconv"
	"strings"
	"time"
)

// The audit records of a repository's settings (review, upkeep), of
// review decisions and of OAuth sessions. A store appends each
// in the transaction of the act it records, with the actor the caller put
// in the context (WithAuditActor).

// AuditRecordOfPolicy is the record of repo's review policy set to pol.
func AuditRecordOfPolicy(by AuditActor, repo string, pol ReviewPolicy, at time.Time) AuditRecord {
	return AuditRecord{Repo: repo, At: at, Action: AuditPolicy, By: by, Detail: map[string]string{"review": string(pol)}}
}

// AuditRecordOfUpkeep is the record of repo's upkeep settings set to st.
func AuditRecordOfUpkeep(by AuditActor, repo string, st UpkeepSettings, at time.Time) AuditRecord {
	return AuditRecord{Repo: repo, At: at, Action: AuditUpkeep, By: by,
		Detail: map[string]string{"unusedDays": strconv.Itoa(st.UnusedDays), "dailyTidy": strconv.FormatBool(st.DailyTidy)}}
}

// decisionActions are the acts a decision ending in a state records.
var decisionActions = map[ProposalState]AuditAction{ProposalApproved: AuditApprove, ProposalRejected: AuditReject,
	ProposalWithdrawn: AuditWithdraw}

// AuditRecordOfDecision is the record of decision d of proposal p (as it
// stands after d), and whether d is one to record: a rejection, a
// withdrawal, or the last step of an approval (approved to approved, with
// the version its write made). The claim that starts an approval and its
// undoing when the write fails are not acts of their own.
func AuditRecordOfDecision(by AuditActor, d ProposalDecision, p Proposal) (AuditRecord, bool) {
	act, ok := decisionActions[d.To]
	if !ok || d.To == ProposalApproved && d.From != ProposalApproved {
		return AuditRecord{}, false
	}
	detail := map[string]string{"proposal": strconv.FormatInt(d.ID, 10), "author": p.Author}
	if keys := p.Keys(); len(keys) > 0 {
		detail["keys"] = strings.Join(keys, " ")
	}
	return AuditRecord{Repo: p.Repo, At: d.At, Action: act, By: by, Version: d.AppliedVersion, Detail: detail}, true
}

// AuditRecordOfSession is the record of the OAuth session s consented to:
// its person through the consent page, with the credential they were
// signed in with; the client, the resource and the grants it was given
// (never a code or a token).
func AuditRecordOfSession(s OAuthSession) AuditRecord {
	by := AuditActor{Subject: s.Subject, DisplayName: s.DisplayName, Credential: s.Parent, Surface: string(SurfaceWeb)}
	return AuditRecord{Repo: ServerChain, At: s.CreatedAt, Action: AuditSessionStart, By: by,
		Detail: map[string]string{"session": s.ID, "subject": s.Subject, "client": s.ClientID, "clientName": s.ClientName,
			"resource": s.Resource, "grants": strings.Join(s.Grants, " "), "expires": s.ExpiresAt.UTC().Format(time.RFC3339)}}
}

// AuditRecordOfSessionEnd is the record of the OAuth session id of
// subject ended by by; why, when the server ended it itself (a code or a
// refresh token used twice).
func AuditRecordOfSessionEnd(by AuditActor, id, subject, why string, at time.Time) AuditRecord {
	d := map[string]string{"session": id, "subject": subject}
	if why != "" {
		d["why"] = why
	}
	return AuditRecord{Repo: ServerChain, At: at, Action: AuditSessionRevoke, By: by, Detail: d}
}

// ServerActor is the server itself acting (a session it ends on a replayed
// code or refresh token), through surface.
func ServerActor(surface string) AuditActor { return AuditActor{Subject: "server", Surface: surface} }

// ActorOfCaller is the actor of an act p does through the front door its
// claims name (surface, client): what a write by p would record.
func ActorOfCaller(p Principal, claims Provenance) AuditActor { return ActorOf(claims.stamp(p)) }
