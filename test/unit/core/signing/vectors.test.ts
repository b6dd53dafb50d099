// The providers' own published test values (docs/signatures.md, "Cross-checks").
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeHeaders, schemeFor } from '../../../../src/core/signing';

const at = (seconds: number) => () => seconds * 1000;

describe('official test vectors', () => {
  it('GitHub: the docs example signs and verifies', () => {
    const github = schemeFor('github');
    const body = Buffer.from('Hello, World!');
    const secret = "It's a Secret to Everybody";
    const expected = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    assert.equal(github.sign({ secret, body }).headers['X-Hub-Signature-256'], expected);
    assert.deepEqual(github.verify({ secret, body, headers: { 'x-hub-signature-256': expected } }), { valid: true });
  });

  const twilioUrl = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const twilioForm = (params: [string, string][]) => Buffer.from(new URLSearchParams(params).toString());
  const callParams: [string, string][] = [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', '+14158675309'],
    ['Digits', '1234'],
    ['From', '+14158675309'],
    ['To', '+18005551212'],
  ];

  it('Twilio: the form-parameter vector of twilio-node', () => {
    const twilio = schemeFor('twilio');
    const body = twilioForm(callParams);
    const signature = 'RSOYDt4T1cUTdK1PDd93/VVr8B8=';
    assert.equal(twilio.sign({ secret: '12345', body, url: twilioUrl }).headers['X-Twilio-Signature'], signature);
    assert.deepEqual(twilio.verify({ secret: '12345', body, url: twilioUrl, headers: { 'x-twilio-signature': signature } }), { valid: true });
  });

  it('Twilio: repeated parameters are de-duplicated and sorted', () => {
    const body = twilioForm([
      ['Sid', 'CA123'],
      ['SidAccount', 'AC123'],
      ['Digits', '5678'],
      ['Digits', '1234'],
      ['Digits', '1234'],
    ]);
    const headers = { 'x-twilio-signature': 'IK+Dwps556ElfBT0I3Rgjkr1wJU=' };
    assert.deepEqual(schemeFor('twilio').verify({ secret: '12345', body, url: twilioUrl, headers }), { valid: true });
  });

  it('Twilio: the JSON body vector, bodySHA256 and all', () => {
    const twilio = schemeFor('twilio');
    const body = Buffer.from('{"property": "value", "boolean": true}');
    const signed = twilio.sign({ secret: '12345', body, url: twilioUrl });
    assert.equal(signed.url, `${twilioUrl}&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620`);
    assert.equal(signed.headers['X-Twilio-Signature'], 'a9nBmqA0ju/hNViExpshrM61xv4=');
    assert.deepEqual(twilio.verify({ secret: '12345', body, url: signed.url, headers: normalizeHeaders(signed.headers) }), { valid: true });
  });

  it('Twilio: the worked example of the current docs page', () => {
    const body = twilioForm(callParams.map(([k, v]) => [k, v === '+14158675309' ? '+12349013030' : v]));
    const headers = { 'x-twilio-signature': '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' };
    assert.deepEqual(schemeFor('twilio').verify({ secret: '12345', body, url: twilioUrl, headers }), { valid: true });
  });

  it('Slack: the docs example verifies at its own time', () => {
    const body = Buffer.from(
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V' +
        '&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=' +
        '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
        '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
    );
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const signature = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
    const slack = schemeFor('slack');
    assert.equal(slack.sign({ secret, body, timestamp: 1531420618 }).headers['X-Slack-Signature'], signature);
    const headers = { 'x-slack-signature': signature, 'x-slack-request-timestamp': '1531420618' };
    assert.deepEqual(slack.verify({ secret, body, headers }, { now: at(1531420618) }), { valid: true });
  });

  it('Standard Webhooks: the reference library test value', () => {
    const standard = schemeFor('standard');
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = Buffer.from('{"test": 2432232314}');
    const signed = standard.sign({ secret, body, id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330 });
    assert.equal(signed.headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    assert.deepEqual(standard.verify({ secret, body, headers: signed.headers }, { now: at(1614265330) }), { valid: true });
  });
});
