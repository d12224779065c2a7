// cardapio workshop: follows the model's versions over server-sent events
// and runs the page's forms. No library, no network beyond this server.
'use strict';
(function () {
  const token = document.querySelector('meta[name="cardapio-token"]').content;
  const $ = (sel) => document.querySelector(sel);
  const conn = $('#conn');

  function openKeys(root) {
    return new Set([...root.querySelectorAll('details[open][data-key]')].map((d) => d.dataset.key));
  }
  function restoreOpen(root, keys) {
    for (const d of root.querySelectorAll('details[data-key]')) {
      if (keys.has(d.dataset.key)) d.open = true;
      else if (d.classList.contains('structure') && keys.size) d.open = false;
    }
  }

  function showOp() {
    const sel = $('#op');
    if (!sel) return;
    for (const fs of document.querySelectorAll('fieldset.op')) {
      const on = fs.dataset.op === sel.value;
      fs.hidden = !on;
      fs.disabled = !on;
    }
  }

  // apply shows one push: the sections it carries replace theirs (the
  // verdict's first, the month and the items when drawn); a section it
  // does not carry stays, marked as from its earlier version.
  function apply(msg) {
    const live = $('#live');
    const y = window.scrollY;
    for (const [id, html] of Object.entries(msg.sections || {})) {
      const old = document.getElementById(id);
      if (!old) continue;
      const keys = openKeys(old);
      const tpl = document.createElement('template');
      tpl.innerHTML = html.trim();
      const fresh = tpl.content.firstElementChild;
      restoreOpen(fresh, keys);
      fresh.dataset.v = String(msg.gen);
      old.replaceWith(fresh);
    }
    live.dataset.gen = String(msg.gen);
    live.dataset.seq = String(msg.seq);
    live.dataset.full = String(msg.full);
    for (const sec of live.querySelectorAll(':scope > section')) {
      const stale = sec.dataset.v !== String(msg.gen);
      sec.classList.toggle('stale', stale);
      let note = sec.querySelector(':scope > .stale-note');
      if (stale && !note) {
        note = document.createElement('p');
        note.className = 'stale-note';
        sec.prepend(note);
      }
      if (note) {
        if (stale) note.textContent = 'From version ' + sec.dataset.v + (msg.full ? ': version ' + msg.gen + ' is refused, fix it to see this again.' : ': version ' + msg.gen + ' is being drawn…');
        else note.remove();
      }
    }
    const controls = $('#controls');
    // A refused version has no controls to offer: the last ones stay
    // (the server refuses to run them until the model loads again).
    if (msg.shape && controls.dataset.shape !== msg.shape) {
      const op = $('#op') ? $('#op').value : '';
      const answer = $('#answer') ? $('#answer').innerHTML : '';
      const result = $('#whatif-result') ? $('#whatif-result').innerHTML : '';
      controls.innerHTML = msg.controls;
      controls.dataset.shape = msg.shape;
      if ($('#answer')) $('#answer').innerHTML = answer;
      if ($('#whatif-result')) $('#whatif-result').innerHTML = result;
      if (op && $('#op') && $('#op').querySelector('option[value="' + CSS.escape(op) + '"]')) $('#op').value = op;
      showOp();
    }
    window.scrollTo(0, y);
    conn.textContent = 'live: version ' + msg.gen + (msg.full ? '' : ' (pricing, drawing items…)') + ' shown at ' + new Date().toLocaleTimeString();
  }

  function listen() {
    const d = $('#live').dataset;
    const es = new EventSource('/events?since=' + encodeURIComponent(d.seq) + '&gen=' + encodeURIComponent(d.gen));
    es.addEventListener('open', () => { conn.textContent = 'live: following the file (version ' + $('#live').dataset.gen + ')'; });
    es.addEventListener('view', (e) => apply(JSON.parse(e.data)));
    es.addEventListener('error', () => { conn.textContent = 'live: connection lost, retrying…'; });
  }

  async function post(url, form, out) {
    const body = new URLSearchParams();
    for (const [k, v] of new FormData(form)) body.append(k, v);
    out.setAttribute('aria-busy', 'true');
    try {
      const r = await fetch(url, { method: 'POST', body, headers: { 'X-Cardapio-Token': token }, credentials: 'same-origin' });
      out.innerHTML = await r.text();
    } catch (err) {
      out.textContent = 'Refused: ' + err;
    }
    out.removeAttribute('aria-busy');
  }

  document.addEventListener('change', (e) => {
    if (e.target.id === 'op') showOp();
    if (e.target.classList.contains('suggest')) {
      const fs = e.target.closest('fieldset');
      const opt = e.target.selectedOptions[0];
      const vals = opt && opt.dataset.values ? JSON.parse(opt.dataset.values) : {};
      for (const inp of fs.querySelectorAll('input[name^="p."]')) {
        inp.value = vals[inp.name.slice(2)] || '';
      }
    }
  });
  document.addEventListener('submit', (e) => {
    if (e.target.id === 'ask-form') {
      e.preventDefault();
      post('/ask', e.target, $('#answer'));
    } else if (e.target.id === 'whatif-form') {
      e.preventDefault();
      post('/whatif', e.target, $('#whatif-result'));
    }
  });
  document.addEventListener('click', (e) => {
    if (e.target.id === 'whatif-write') {
      post('/whatif/write', $('#whatif-form'), $('#whatif-result'));
    }
  });
  window.addEventListener('beforeprint', () => {
    for (const d of document.querySelectorAll('details')) d.open = true;
  });

  for (const sec of document.querySelectorAll('#live > section')) sec.dataset.v = $('#live').dataset.gen;
  showOp();
  listen();
})();
