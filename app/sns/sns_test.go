package sns_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/sns"
	"github.com/heraldmail/herald/app/sns/snstest"
)

var now = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

func subject(s string) *string { return &s }

func TestStringToSignFollowsTheDocumentedOrder(t *testing.T) {
	n := &sns.Message{Type: "Notification", MessageID: "m1", TopicArn: "arn:t", Message: "hello",
		Timestamp: "2026-01-15T12:00:00Z", Token: "not signed", SubscribeURL: "not signed"}
	got, err := n.StringToSign()
	want := "Message\nhello\nMessageId\nm1\nTimestamp\n2026-01-15T12:00:00Z\nTopicArn\narn:t\nType\nNotification\n"
	if err != nil || got != want {
		t.Errorf("notification:\n%q\nwant\n%q (%v)", got, want, err)
	}
	n.Subject = subject("")
	got, _ = n.StringToSign()
	if !strings.Contains(got, "MessageId\nm1\nSubject\n\nTimestamp") {
		t.Errorf("a present Subject is signed, even empty: %q", got)
	}
	c := &sns.Message{Type: "SubscriptionConfirmation", MessageID: "m2", TopicArn: "arn:t", Message: "confirm",
		Timestamp: "t", Token: "tok", SubscribeURL: "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription"}
	got, _ = c.StringToSign()
	want = "Message\nconfirm\nMessageId\nm2\nSubscribeURL\nhttps://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription\n" +
		"Timestamp\nt\nToken\ntok\nTopicArn\narn:t\nType\nSubscriptionConfirmation\n"
	if got != want {
		t.Errorf("confirmation:\n%q\nwant\n%q", got, want)
	}
}

func TestVerifyBothSignatureVersions(t *testing.T) {
	s := snstest.New(t, now)
	cert, err := sns.ParseCertificate(s.CertPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"1", "2"} {
		m := &sns.Message{Type: "Notification", MessageID: "m", TopicArn: "arn:t", Message: `{"a":1}`,
			Subject: subject("s"), Timestamp: "t"}
		s.Sign(t, m, version)
		if err := m.Verify(cert); err != nil {
			t.Errorf("version %s: %v", version, err)
		}
		m.Message = `{"a":2}`
		if err := m.Verify(cert); !errors.Is(err, sns.ErrUntrusted) {
			t.Errorf("version %s, altered message: %v", version, err)
		}
	}
}

func TestVerifyRefusesUnknownVersionAndOtherKeys(t *testing.T) {
	s, other := snstest.New(t, now), snstest.New(t, now)
	m := &sns.Message{Type: "Notification", MessageID: "m", TopicArn: "arn:t", Message: "x", Timestamp: "t"}
	other.Sign(t, m, "2")
	cert, _ := sns.ParseCertificate(s.CertPEM)
	if err := m.Verify(cert); !errors.Is(err, sns.ErrUntrusted) {
		t.Errorf("signed by another key: %v", err)
	}
	s.Sign(t, m, "2")
	m.SignatureVersion = "3"
	if err := m.Verify(cert); !errors.Is(err, sns.ErrUntrusted) {
		t.Errorf("version 3: %v", err)
	}
}

func TestCertURLMustBeOnSNS(t *testing.T) {
	for _, u := range []string{
		"https://sns.us-east-1.amazonaws.com/SimpleNotificationService-abc.pem",
		"https://sns.eu-west-1.amazonaws.com/x.pem",
	} {
		if err := sns.CheckCertURL(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{
		"http://sns.us-east-1.amazonaws.com/x.pem",            // not https
		"https://sns.us-east-1.amazonaws.com.evil.test/x.pem", // not AWS
		"https://evil.test/sns.us-east-1.amazonaws.com/x.pem",
		"https://s3.amazonaws.com/x.pem",                 // AWS, not SNS
		"https://sns.amazonaws.com/x.pem",                // no region
		"https://sns.us-east-1.amazonaws.com:8443/x.pem", // another port
		"https://user@sns.us-east-1.amazonaws.com/x.pem",
		"https://sns.us-east-1.amazonaws.com/x.txt",
		"://",
	} {
		if err := sns.CheckCertURL(u); !errors.Is(err, sns.ErrUntrusted) {
			t.Errorf("%s accepted: %v", u, err)
		}
	}
}

func TestSubscribeURLMustBeOnAWS(t *testing.T) {
	if err := sns.CheckSubscribeURL("https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&Token=x"); err != nil {
		t.Error(err)
	}
	for _, u := range []string{"http://sns.us-east-1.amazonaws.com/", "https://127.0.0.1/", "https://amazonaws.com.evil.test/",
		"https://evilamazonaws.com/"} {
		if sns.CheckSubscribeURL(u) == nil {
			t.Errorf("%s accepted", u)
		}
	}
}

func TestParseRefusesIncompleteMessages(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":     "hello",
		"unknown type": `{"Type":"Other","MessageId":"m","TopicArn":"t","Timestamp":"t","Signature":"x","SigningCertURL":"u"}`,
		"no signature": `{"Type":"Notification","MessageId":"m","TopicArn":"t","Timestamp":"t","Message":"x"}`,
		"no topic":     `{"Type":"Notification","MessageId":"m","Timestamp":"t","Signature":"x","SigningCertURL":"u"}`,
	} {
		if _, err := sns.Parse([]byte(body)); !errors.Is(err, sns.ErrMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
