// SPEC §10 baseline: the smallest useful streaming client written with the official openai package.
import OpenAI from 'openai';

const [baseURL, model, prompt] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: 'bench' });
const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: prompt }], stream: true });
for await (const chunk of stream) {
  const delta = chunk.choices[0]?.delta?.content;
  if (delta) process.stdout.write(delta);
}
process.stdout.write('\n');
