import { createClient } from 'groupadmin/client';

const client = createClient({ baseUrl: process.env.GROUPADMIN_URL ?? 'http://127.0.0.1:3000/api', retryOn429: 2 });
const login = await client.login(process.env.GROUPADMIN_USER ?? 'admin', process.env.GROUPADMIN_PASSWORD);
if (login.error) throw new Error(`login failed: ${login.error.message}`);
const { data: me, error } = await client.user();
if (error) throw new Error(error.message);
console.log(`Hello ${me.firstname} ${me.lastname} <${me.email}>`);
await client.logout();
