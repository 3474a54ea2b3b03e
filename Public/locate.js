// Offers the browser's location to a form: the button fills the field its data-field names with
// latitude,longitude, and submits the form when its data-then says "submit" (the search). The
// pages work without it: coordinates can be typed. Nothing is sent anywhere but in the form, and
// only when the person asks.
(function () {
  var button = document.getElementById("locate");
  var field = button && document.getElementById(button.dataset.field);
  if (!button || !field || !navigator.geolocation) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    button.disabled = true;
    navigator.geolocation.getCurrentPosition(function (position) {
      field.value = position.coords.latitude.toFixed(5) + "," + position.coords.longitude.toFixed(5);
      button.disabled = false;
      if (button.dataset.then === "submit") field.form.submit();
    }, function () {
      button.disabled = false;
      button.textContent = "Location not available: type it";
    }, { timeout: 10000 });
  });
})();
