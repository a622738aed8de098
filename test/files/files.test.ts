// test-suite: once (the files API over the file store)
import t from 'tap';
import { sharedServer } from '../helpers/server.ts';
import { multipart } from '../catalog/fixtures.ts';
import { attachment } from '../../src/http/content-disposition.ts';

const UNKNOWN = '3f1d0f3e-1c2b-4a5d-9e8f-0a1b2c3d4e5f';

t.test('file upload and download', async (t) => {
  const server = await sharedServer();
  const { api } = server;
  const alice = await server.token('alice');

  t.test('upload answers 201 FileResponse; download has exactly the documented headers', async (t) => {
    const content = Buffer.from('hello, world\n');
    const r = await api.post('/api/v1/files', { raw: multipart('file', content, 'report.txt', 'text/plain'), token: alice, expect: 201 });
    t.match(r.body, { filename: 'report.txt', contentType: 'text/plain', size: content.length, url: `/api/v1/files/${r.body.id}` });
    t.equal(r.headers.get('location'), `/api/v1/files/${r.body.id}`);
    const d = await api.get(r.body.url, { token: alice, expect: 200 });
    t.equal(d.headers.get('content-type'), 'text/plain');
    t.equal(d.headers.get('content-length'), String(content.length));
    t.equal(d.headers.get('content-disposition'), 'attachment; filename="report.txt"');
    t.equal(d.headers.get('cache-control'), 'private, max-age=86400', 'per-user data: no shared cache');
    t.equal(d.headers.get('x-content-type-options'), 'nosniff');
    t.equal(d.text, content.toString());
  });

  t.test('non-ASCII names get an RFC 6266 filename* and a safe fallback; quotes are escaped', async (t) => {
    const r = await api.post('/api/v1/files', {
      raw: multipart('file', Buffer.from('x'), 'Übersicht (Q1) €.pdf', 'application/pdf'),
      token: alice,
      expect: 201,
    });
    t.equal(r.body.filename, 'Übersicht (Q1) €.pdf');
    const d = await api.get(r.body.url, { token: alice, expect: 200 });
    t.equal(
      d.headers.get('content-disposition'),
      `attachment; filename="_bersicht (Q1) _.pdf"; filename*=UTF-8''%C3%9Cbersicht%20%28Q1%29%20%E2%82%AC.pdf`,
    );
    // fetch's FormData percent-encodes quotes in part names, so the quoting rules are checked directly.
    t.equal(attachment('a "b" \\c.txt'), 'attachment; filename="a \\"b\\" \\\\c.txt"');
    t.equal(attachment("it's.txt"), 'attachment; filename="it\'s.txt"');
    t.equal(d.headers.get('content-type'), 'application/pdf');
  });

  t.test('an HTML body declared text/plain is served as text/plain, nosniff, as an attachment', async (t) => {
    const html = Buffer.from('<!doctype html><script>alert(document.cookie)</script>');
    const r = await api.post('/api/v1/files', { raw: multipart('file', html, 'notes.txt', 'text/plain'), token: alice, expect: 201 });
    const d = await api.get(r.body.url, { token: alice, expect: 200 });
    t.equal(d.headers.get('content-type'), 'text/plain');
    t.equal(d.headers.get('x-content-type-options'), 'nosniff', 'the browser may not sniff HTML out of it');
    t.match(d.headers.get('content-disposition'), /^attachment;/);
    t.equal(d.headers.get('cache-control'), 'private, max-age=86400');
  });

  t.test('a missing content type is stored as application/octet-stream', async (t) => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from([0, 1, 2, 255])]), 'blob.bin');
    const r = await api.post('/api/v1/files', { raw: form, token: alice, expect: 201 });
    t.equal(r.body.contentType, 'application/octet-stream');
    const d = await fetch(`${server.baseUrl}${r.body.url}`, { headers: { authorization: `Bearer ${alice}` } });
    t.same(Buffer.from(await d.arrayBuffer()), Buffer.from([0, 1, 2, 255]));
  });

  t.test('upload errors: 400 empty or missing part, 401, 415 not multipart', async (t) => {
    const empty = await api.post('/api/v1/files', { raw: multipart('file', Buffer.alloc(0), 'empty.txt'), token: alice, expect: 400 });
    t.match(empty.body, { type: '/problems/empty-file', code: 'EMPTY_FILE' });
    const none = new FormData();
    none.append('note', 'no file here');
    t.match((await api.post('/api/v1/files', { raw: none, token: alice, expect: 400 })).body, { type: '/problems/empty-file' });
    await api.post('/api/v1/files', { raw: multipart('file', Buffer.from('x'), 'a.txt'), expect: 401 });
    await api.post('/api/v1/files', { body: { file: 'x' }, token: alice, expect: 415 });
    await api.post('/api/v1/files', { raw: 'a,b', headers: { 'content-type': 'text/csv' }, token: alice, expect: 415 });
    const broken = await api.post('/api/v1/files', {
      raw: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nunterminated',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      token: alice,
    });
    t.equal(broken.status, 400, 'a truncated multipart body is a client error');
  });

  t.test('download errors: 400, 401, 404, 406', async (t) => {
    const r = await api.post('/api/v1/files', {
      raw: multipart('file', Buffer.from('{}'), 'a.json', 'application/json'),
      token: alice,
      expect: 201,
    });
    await api.get(r.body.url, { expect: 401 });
    await api.get(`/api/v1/files/${UNKNOWN}`, { token: alice, expect: 404 });
    await api.get('/api/v1/files/not-a-uuid', { token: alice, expect: 400 });
    await api.get(`${r.body.url}?format=json`, { token: alice, expect: 406 });
    await api.get(r.body.url, { headers: { accept: 'text/html' }, token: alice, expect: 406 });
    await api.get(r.body.url, { headers: { accept: 'application/*' }, token: alice, expect: 200 });
  });
});
