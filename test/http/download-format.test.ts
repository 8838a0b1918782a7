import Fastify, { type FastifyRequest } from 'fastify';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { downloadFormatOf, FormatParameter, JsonOrFile, JsonOrFiles, varyOn } from '../../src/http/download-format.js';
import { XLSX_MEDIA_TYPE } from '../../src/lib/xlsx.js';
import { compileObjectValidator } from '../../src/lib/validation.js';

const asking = (accept?: string) => ({ headers: accept === undefined ? {} : { accept } }) as unknown as FastifyRequest;
const ALL = ['json', 'csv', 'xlsx', 'vcf'] as const;

/** Which form a list answers in (http/download-format.ts). */
describe('downloadFormatOf', () => {
  it('answers JSON unless asked for a file', () => {
    expect(downloadFormatOf(asking(), ALL, undefined)).toBe('json');
    expect(downloadFormatOf(asking('application/json'), ALL, undefined)).toBe('json');
    expect(downloadFormatOf(asking('*/*'), ALL, undefined)).toBe('json');
  });

  it('takes the first media type of Accept, in any case and with parameters', () => {
    expect(downloadFormatOf(asking('text/csv'), ALL, undefined)).toBe('csv');
    expect(downloadFormatOf(asking('Text/CSV; charset=utf-8, application/json'), ALL, undefined)).toBe('csv');
    expect(downloadFormatOf(asking(`${XLSX_MEDIA_TYPE};q=1`), ALL, undefined)).toBe('xlsx');
    // A browser's list that names CSV further down asks for the page, not the file.
    expect(downloadFormatOf(asking('text/html,text/csv'), ALL, undefined)).toBe('json');
  });

  it('takes text/vcard and its older name text/x-vcard for a vCard', () => {
    expect(downloadFormatOf(asking('text/vcard'), ALL, undefined)).toBe('vcf');
    expect(downloadFormatOf(asking('Text/X-VCard;charset=utf-8'), ALL, undefined)).toBe('vcf');
    expect(downloadFormatOf(asking('text/vcard'), ALL, 'csv')).toBe('csv');
    expect(downloadFormatOf(asking('text/csv'), ALL, 'vcf')).toBe('vcf');
  });

  it('lets the format parameter win over Accept', () => {
    expect(downloadFormatOf(asking('text/csv'), ALL, 'json')).toBe('json');
    expect(downloadFormatOf(asking('text/csv'), ALL, 'xlsx')).toBe('xlsx');
    expect(downloadFormatOf(asking(XLSX_MEDIA_TYPE), ALL, 'csv')).toBe('csv');
  });

  it('answers JSON to an Accept type the list does not offer', () => {
    expect(downloadFormatOf(asking(XLSX_MEDIA_TYPE), ['json', 'csv'], undefined)).toBe('json');
    expect(downloadFormatOf(asking('text/csv'), ['json'], undefined)).toBe('json');
    // Where no vCard exists (an event's participants), text/vcard asks for the JSON.
    expect(downloadFormatOf(asking('text/vcard'), ['json', 'csv', 'xlsx'], undefined)).toBe('json');
  });
});

describe('FormatParameter', () => {
  const check = compileObjectValidator(Type.Object({ format: FormatParameter(['json', 'csv']) }, { additionalProperties: false }), { convertStrings: true });

  it('takes the formats the list offers, and refuses others as "The selected format is invalid."', () => {
    expect(check({ format: 'csv' })).toEqual({ ok: true, value: { format: 'csv' } });
    expect(check({})).toEqual({ ok: true, value: {} });
    for (const format of ['xlsx', 'vcf', 'CSV', '']) expect(check({ format })).toEqual({ ok: false, fieldErrors: { format: ['The selected format is invalid.'] } });
  });
});

describe('JsonOrFiles', () => {
  it('documents the JSON answer and both files', () => {
    const answer = JsonOrFiles(Type.Object({}), { csv: 'the CSV', xlsx: 'the workbook' });
    expect(Object.keys(answer.content)).toEqual(['application/json', 'text/csv', XLSX_MEDIA_TYPE]);
    expect(answer.content[XLSX_MEDIA_TYPE]!.schema).toMatchObject({ type: 'string', format: 'binary', description: 'the workbook' });
    expect(answer.description).not.toContain('vCard');
  });

  it('documents the vCard file where the list offers one', () => {
    const answer = JsonOrFiles(Type.Object({}), { csv: 'the CSV', xlsx: 'the workbook', vcf: 'the cards' });
    expect(Object.keys(answer.content)).toEqual(['application/json', 'text/csv', XLSX_MEDIA_TYPE, 'text/vcard']);
    expect(answer.content['text/vcard']!.schema).toMatchObject({ type: 'string', description: 'the cards' });
    expect(answer.description).toContain('format=vcf');
  });
});

describe('JsonOrFile', () => {
  it('documents one resource as JSON or as a file, with its Content-Disposition', () => {
    const answer = JsonOrFile(Type.Object({}), { mediaType: 'text/calendar', description: 'the event' });
    expect(Object.keys(answer.content)).toEqual(['application/json', 'text/calendar']);
    expect(answer.headers['Content-Disposition'].description).toMatch(/attachment/);
  });
});

/** `Vary` on an answer chosen by a request header (http/download-format.ts). */
describe('varyOn', () => {
  it('adds the header once, beside the names already there', async () => {
    const app = Fastify();
    app.get('/', async (_request, reply) => {
      reply.header('vary', 'Origin');
      varyOn(reply, 'Accept');
      varyOn(reply, 'accept');
      return 'x';
    });
    app.get('/alone', async (_request, reply) => {
      varyOn(reply, 'Accept');
      return 'x';
    });
    expect((await app.inject('/')).headers.vary).toBe('Origin, Accept');
    expect((await app.inject('/alone')).headers.vary).toBe('Accept');
    await app.close();
  });
});
