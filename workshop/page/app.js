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

  function apply(msg) {
    const live = $('#live');
    const keys = openKeys(live);
    const y = window.scrollY;
    live.innerHTML = msg.live;
    restoreOpen(live, keys);
    live.dataset.gen = String(msg.gen);
    const controls = $('#controls');
    if (controls.dataset.shape !== msg.shape) {
      const op = $('#op') ? $('#op').value : '';
      const answer = $('#answer').innerHTML;
      const result = $('#whatif-result').innerHTML;
      controls.innerHTML = msg.controls;
      controls.dataset.shape = msg.shape;
      $('#answer').innerHTML = answer;
      $('#whatif-result').innerHTML = result;
      if (op && $('#op').querySelector('option[value="' + CSS.escape(op) + '"]')) $('#op').value = op;
      showOp();
    }
    window.scrollTo(0, y);
    conn.textContent = 'live: version ' + msg.gen + ' shown at ' + new Date().toLocaleTimeString();
  }

  function listen() {
    const gen = $('#live').dataset.gen;
    const es = new EventSource('/events?since=' + encodeURIComponent(gen));
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

  showOp();
  listen();
})();
